package dev.baton.morsel.operator;

import java.util.Arrays;

/**
 * A hash join's build side: long key → long payload, open addressing. Built per worker from its
 * morsels, merged at the barrier into one table that the probe pipeline reads without locks.
 */
public final class LongLongJoinTable {

    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys;
    private long[] payloads;
    private int size;
    private int mask;

    public LongLongJoinTable(int expected) {
        allocate(Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        Arrays.fill(keys, EMPTY);
        payloads = new long[capacity];
        mask = capacity - 1;
        size = 0;
    }

    public void put(long key, long payload) {
        if (size + 1 > (mask + 1) * 3 / 4) {
            grow();
        }
        int i = (int) (LongAggTable.mix(key) & mask);
        while (keys[i] != EMPTY && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (keys[i] == EMPTY) {
            size++;
        }
        keys[i] = key;
        payloads[i] = payload;
    }

    /** The payload of {@code key}, or {@code missing} when the build side has no such key. */
    public long get(long key, long missing) {
        int i = (int) (LongAggTable.mix(key) & mask);
        while (true) {
            long k = keys[i];
            if (k == key) {
                return payloads[i];
            }
            if (k == EMPTY) {
                return missing;
            }
            i = (i + 1) & mask;
        }
    }

    public int size() {
        return size;
    }

    public void mergeFrom(LongLongJoinTable other) {
        for (int i = 0; i < other.keys.length; i++) {
            if (other.keys[i] != EMPTY) {
                put(other.keys[i], other.payloads[i]);
            }
        }
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldPayloads = payloads;
        allocate((mask + 1) * 2);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldPayloads[i]);
            }
        }
    }
}
