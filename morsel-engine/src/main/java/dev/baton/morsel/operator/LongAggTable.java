package dev.baton.morsel.operator;

import java.util.Arrays;

/**
 * A hash aggregate's partial table: long group key → {@code slots} long accumulators. One per
 * worker (thread-local partials, no locks); partials are merged at the pipeline barrier. Sums of
 * fixed-point longs are exact and associative, so the merged result does not depend on how rows
 * were split among workers; so are the other {@link Combine} kinds a table may be built with (a
 * new group starts at each slot's identity).
 *
 * <p>Groups are stored densely in the order they were first seen ({@code keys[g]}, accumulators at
 * {@code values[g * slots ..]}); an open-addressing index (linear probing) maps a key's hash to its
 * group. A group's slot base never moves, only the arrays grow, and clustered input (rows sorted by
 * key, as lineitem is by order key) touches the accumulators in order and drains in a few sorted runs.
 */
public final class LongAggTable {

    private final int slots;
    /** How each slot merges; {@code null}: every slot sums (and starts at 0). */
    private final Combine[] combine;
    private final CombinePlan plan;
    private long[] keys;
    private long[] values;
    /** Group number + 1 by hash position; 0 is an empty position. */
    private int[] index;
    private int mask;
    private int size;
    /** Above this many ascending runs of first-seen keys, {@link #sorted()} sorts instead of merging the runs. */
    static final int MAX_MERGED_RUNS = 16;
    /** Where each ascending run of first-seen keys starts, kept as groups are inserted; {@code runs < 0}: more than {@link #MAX_MERGED_RUNS}. */
    private final int[] runStarts = new int[MAX_MERGED_RUNS];
    private int runs = 1;
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
        this.plan = CombinePlan.of(this.combine, slots);
        Arrays.fill(dense, -1);
        int groups = Math.max(8, expectedGroups);
        keys = new long[groups];
        values = new long[groups * slots];
        int capacity = Integer.highestOneBit(Math.max(16, groups * 2 - 1)) << 1;
        index = new int[capacity];
        mask = capacity - 1;
    }

    /** The index into {@link #values()} of {@code key}'s accumulators, inserting it (at each slot's identity) if new. */
    public int slotBase(long key) {
        if (key >= 0 && key < DENSE_KEYS) {
            int base = dense[(int) key];
            if (base >= 0) { // a slot base never moves
                return base;
            }
            base = probe(key);
            dense[(int) key] = base;
            return base;
        }
        return probe(key);
    }

    /**
     * Slot bases of {@code keys[sel[j]]} into {@code out[j]} for {@code j < n}. A small key is one
     * load from the dense array, with no branch on the data (Q1's four keys alternate at random);
     * another key equal to the previous one (a run of clustered keys) reuses its base.
     */
    public void slotBases(long[] keys, int[] sel, int n, int[] out) {
        long last = keys[sel[0]];
        int base = slotBase(last);
        for (int j = 0; j < n; j++) {
            long k = keys[sel[j]];
            int d;
            if ((k & -DENSE_KEYS) == 0 && (d = dense[(int) k]) >= 0) {
                out[j] = d;
                continue;
            }
            if (k != last) {
                base = slotBase(k);
                last = k;
            }
            out[j] = base;
        }
    }

    private int probe(long key) {
        int i = home(key);
        while (true) {
            int g = index[i] - 1;
            if (g < 0) {
                return insert(key, i);
            }
            if (keys[g] == key) {
                return g * slots;
            }
            i = (i + 1) & mask;
        }
    }

    private int insert(long key, int at) {
        int g = size++;
        if (g == keys.length) {
            keys = Arrays.copyOf(keys, g * 2);
            values = Arrays.copyOf(values, g * 2 * slots);
        }
        keys[g] = key;
        if (g > 0 && key < keys[g - 1] && runs > 0) {
            if (runs == MAX_MERGED_RUNS) {
                runs = -1;
            } else {
                runStarts[runs++] = g;
            }
        }
        if (combine != null) {
            for (int s = 0; s < slots; s++) {
                values[g * slots + s] = combine[s].identity();
            }
        }
        index[at] = g + 1;
        if (size > (mask + 1) * 3 / 4) {
            rehash();
        }
        return g * slots;
    }

    private void rehash() {
        index = new int[(mask + 1) * 2];
        mask = index.length - 1;
        for (int g = 0; g < size; g++) {
            int i = home(keys[g]);
            while (index[i] != 0) {
                i = (i + 1) & mask;
            }
            index[i] = g + 1;
        }
    }

    public void add(int base, int slot, long value) {
        values[base + slot] += value;
    }

    /** The accumulators; a new group may replace the array by a larger one, but slot bases stay valid. */
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
        System.arraycopy(keys, 0, outKeys, offset, size);
        System.arraycopy(values, 0, outValues, offset * slots, size * slots);
        return size;
    }

    /** Adds {@code slots} accumulators from {@code from[at * slots ..]} into group {@code key}. */
    public void addAll(long key, long[] from, int at) {
        addAt(key, from, at * slots);
    }

    /** Adds {@code slots} accumulators from {@code from[offset ..]} into group {@code key}. */
    public void addAt(long key, long[] from, int offset) {
        int base = slotBase(key); // first: a new group may replace the values array, and Java reads the field before the call
        plan.combine(values, base, from, offset);
    }

    /**
     * Keys in ascending order with their accumulators, as flat arrays. Groups filled in a few
     * ascending runs of keys (a worker's morsels of clustered input: one run per stretch of
     * consecutive morsels) are merged run by run; scattered keys are sorted; a single run is the
     * table's own arrays, handed over: add no more rows to the table once its answer is taken.
     */
    public AggregateResult sorted() {
        int[] starts = runStarts();
        if (starts == null) {
            long[] k = Arrays.copyOf(keys, size);
            Arrays.sort(k);
            long[] v = new long[size * slots];
            for (int r = 0; r < k.length; r++) {
                System.arraycopy(values, slotBase(k[r]), v, r * slots, slots);
            }
            return new AggregateResult(k, v, slots);
        }
        if (starts.length == 1) {
            return new AggregateResult(keys, values, slots, size); // GROUP BY l_orderkey on one worker: 36 MB not copied
        }
        return mergeRuns(starts);
    }

    /**
     * The groups as sorted runs for {@link SortedRunMerge}: a table filled in at most
     * {@link #MAX_MERGED_RUNS} ascending runs of keys (a worker's morsels of clustered input, in order,
     * then stolen ones) gives those runs as they lie in its arrays, not copies; scattered keys are
     * {@link #sorted()} into one. Read them only while the table takes no more rows.
     */
    SortedRunMerge.Run[] sortedRuns() {
        int[] starts = runStarts();
        if (starts == null) {
            return new SortedRunMerge.Run[] {SortedRunMerge.Run.of(sorted())};
        }
        SortedRunMerge.Run[] runs = new SortedRunMerge.Run[starts.length];
        for (int r = 0; r < starts.length; r++) {
            runs[r] = new SortedRunMerge.Run(keys, values, starts[r], r + 1 < starts.length ? starts[r + 1] : size);
        }
        return runs;
    }

    /** Where each ascending run of keys starts, or {@code null} when there are more than {@link #MAX_MERGED_RUNS}. */
    private int[] runStarts() {
        return runs < 0 ? null : Arrays.copyOf(runStarts, runs);
    }

    /**
     * Whether {@link #sortedRuns()} is the groups as they lie (at most {@link #MAX_MERGED_RUNS} ascending runs, known as they
     * were inserted), so it costs nothing; otherwise it sorts them.
     */
    boolean inFewRuns() {
        return runs > 0;
    }

    private AggregateResult mergeRuns(int[] starts) {
        int runs = starts.length;
        int[] head = starts.clone();
        int[] end = new int[runs];
        for (int r = 0; r < runs; r++) {
            end[r] = r + 1 < runs ? starts[r + 1] : size;
        }
        long[] k = new long[size];
        long[] v = new long[size * slots];
        int out = 0;
        while (out < size) {
            int best = -1;
            long next = Long.MAX_VALUE; // the smallest head of the other runs (a table's keys are distinct)
            for (int r = 0; r < runs; r++) {
                if (head[r] >= end[r]) {
                    continue;
                }
                long key = keys[head[r]];
                if (best < 0 || key < keys[head[best]]) {
                    if (best >= 0) {
                        next = Math.min(next, keys[head[best]]);
                    }
                    best = r;
                } else {
                    next = Math.min(next, key);
                }
            }
            // A stolen morsel's groups form one block: copy the run up to the next other head at once.
            int from = head[best];
            int stop = SortedRunMerge.blockEnd(keys, from, end[best], next);
            int len = stop - from;
            System.arraycopy(keys, from, k, out, len);
            System.arraycopy(values, from * slots, v, out * slots, len * slots);
            out += len;
            head[best] = stop;
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
        for (int g = 0; g < other.size; g++) {
            int base = slotBase(other.keys[g]);
            plan.combine(values, base, other.values, g * slots);
        }
    }

    /** Group keys in ascending order with their accumulators: a deterministic result whatever the worker count. */
    public long[][] sortedRows() {
        AggregateResult r = sorted();
        long[][] rows = new long[r.rows()][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = r.row(i);
        }
        return rows;
    }

    /*
     * A key's first position in the index: the hash of the key without its low 4 bits, then those
     * bits. Sixteen consecutive keys share one 64-byte line of the index, so keys that arrive
     * clustered (order keys of lineitem) probe it nearly in order instead of missing the cache once
     * per new key; keys that differ above those bits still spread.
     */
    private int home(long key) {
        return (int) ((mix(key >>> 4) << 4 | key & 15) & mask);
    }

    static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        return k;
    }
}
