package dev.baton.morsel.operator;

import java.util.Arrays;

/**
 * A hash aggregate's partial table: long group key → {@code slots} long accumulators, open
 * addressing with linear probing. One per worker (thread-local partials, no locks); partials are
 * merged at the pipeline barrier. Sums of fixed-point longs are exact and associative, so the
 * merged result does not depend on how rows were split among workers; so are the other
 * {@link Combine} kinds a table may be built with (a new group starts at each slot's identity).
 */
public final class LongAggTable {

    private static final long EMPTY = Long.MIN_VALUE;

    private final int slots;
    /** How each slot merges; {@code null}: every slot sums (and starts at 0). */
    private final Combine[] combine;
    private long[] keys;
    private long[] values;
    private int size;
    private int mask;
    /** Small non-negative keys skip hashing: their slot base is remembered here (-1 = not yet seen). */
    private final int[] dense = new int[DENSE_KEYS];
    private static final int DENSE_KEYS = 1 << 16;

    public LongAggTable(int slots, int expectedGroups) {
        this(slots, expectedGroups, null);
    }

    /** @param combine how each slot merges ({@code null} or all {@link Combine#SUM}: sums) */
    public LongAggTable(int slots, int expectedGroups, Combine[] combine) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be >= 1, was " + slots);
        }
        if (combine != null && combine.length != slots) {
            throw new IllegalArgumentException("one combine kind per slot: " + slots + " slots, " + combine.length + " kinds");
        }
        this.slots = slots;
        this.combine = Combine.onlySums(combine) ? null : combine.clone();
        Arrays.fill(dense, -1);
        int capacity = Integer.highestOneBit(Math.max(16, expectedGroups * 2 - 1)) << 1;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        Arrays.fill(keys, EMPTY);
        values = new long[capacity * slots];
        mask = capacity - 1;
        size = 0;
    }

    /** The row index of {@code key}, inserting it with zeroed accumulators if new. {@code Long.MIN_VALUE} is reserved. */
    public int slotBase(long key) {
        if (key >= 0 && key < DENSE_KEYS) {
            int base = dense[(int) key];
            if (base >= 0) { // set only for this key, cleared when the table grows: never stale
                return base;
            }
            base = probe(key);
            dense[(int) key] = base;
            return base;
        }
        return probe(key);
    }

    private int probe(long key) {
        int i = (int) (mix(key) & mask);
        while (true) {
            long k = keys[i];
            if (k == key) {
                return i * slots;
            }
            if (k == EMPTY) {
                if (size + 1 > (mask + 1) * 3 / 4) {
                    grow();
                    return probe(key);
                }
                keys[i] = key;
                size++;
                if (combine != null) {
                    for (int s = 0; s < slots; s++) {
                        values[i * slots + s] = combine[s].identity();
                    }
                }
                return i * slots;
            }
            i = (i + 1) & mask;
        }
    }

    public void add(int base, int slot, long value) {
        values[base + slot] += value;
    }

    public long[] values() {
        return values;
    }

    public int size() {
        return size;
    }

    /**
     * Copies every group into {@code keys[offset..]} and its accumulators into
     * {@code values[offset * slots ..]}; returns how many groups were copied ({@link #size()}).
     */
    public int drainTo(long[] outKeys, long[] outValues, int offset) {
        int n = offset;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                outKeys[n] = keys[i];
                System.arraycopy(values, i * slots, outValues, n * slots, slots);
                n++;
            }
        }
        return n - offset;
    }

    /** Adds {@code slots} accumulators from {@code from[at * slots ..]} into group {@code key}. */
    public void addAll(long key, long[] from, int at) {
        int base = slotBase(key);
        Combine.combine(combine, slots, values, base, from, at * slots);
    }

    /** Keys in ascending order with their accumulators, as flat arrays. */
    public AggregateResult sorted() {
        long[] k = new long[size];
        int n = 0;
        for (long key : keys) {
            if (key != EMPTY) {
                k[n++] = key;
            }
        }
        Arrays.sort(k);
        long[] v = new long[size * slots];
        for (int r = 0; r < k.length; r++) {
            System.arraycopy(values, slotBase(k[r]), v, r * slots, slots);
        }
        return new AggregateResult(k, v, slots);
    }

    public int slots() {
        return slots;
    }

    /** How each slot merges, or {@code null} when every slot sums. */
    public Combine[] combine() {
        return combine == null ? null : combine.clone();
    }

    /** Merges every group of {@code other} into this table, slot by slot as this table's {@link Combine} kinds say. */
    public void mergeFrom(LongAggTable other) {
        for (int i = 0; i < other.keys.length; i++) {
            if (other.keys[i] != EMPTY) {
                int base = slotBase(other.keys[i]);
                Combine.combine(combine, slots, values, base, other.values, i * slots);
            }
        }
    }

    /** Group keys in ascending order with their accumulators: a deterministic result whatever the worker count. */
    public long[][] sortedRows() {
        long[][] rows = new long[size][];
        int n = 0;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                long[] row = new long[slots + 1];
                row[0] = keys[i];
                System.arraycopy(values, i * slots, row, 1, slots);
                rows[n++] = row;
            }
        }
        Arrays.sort(rows, (a, b) -> Long.compare(a[0], b[0]));
        return rows;
    }

    private void grow() {
        Arrays.fill(dense, -1); // slot bases move when the table grows
        long[] oldKeys = keys;
        long[] oldValues = values;
        allocate((mask + 1) * 2);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                int base = probe(oldKeys[i]);
                System.arraycopy(oldValues, i * slots, values, base, slots);
            }
        }
    }

    static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        return k;
    }
}
