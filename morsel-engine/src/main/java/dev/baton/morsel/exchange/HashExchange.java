package dev.baton.morsel.exchange;

import java.util.ArrayList;
import java.util.List;

/**
 * Assigns items to {@code P} exchange partitions. Partition = {@code hash(key) mod P}
 * ({@link #partitionOf}), the same function a Kafka-backed exchange uses to pick the partition of
 * {@code baton.exchange.<job>}. A hot partition spills: once it holds {@code hotThreshold} items,
 * further items go to the least-loaded partition, so a skewed key cannot pile all work on one worker.
 */
public final class HashExchange {

    public static final int DEFAULT_HOT_THRESHOLD = 32;

    private HashExchange() {
    }

    /** {@code floorMod(mix(key), partitions)}: a well-spread, non-negative partition for any long key. */
    public static int partitionOf(long key, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        return Math.floorMod(mix(key), partitions);
    }

    /** A 64-bit finalizer (murmur3 fmix64) so sequential keys spread evenly. */
    public static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /** Item indexes per partition, with hot-partition spill. */
    public static List<List<Integer>> hashPartition(long[] keys, int partitions, int hotThreshold) {
        int[] target = assign(keys, partitions, hotThreshold);
        List<List<Integer>> out = empty(partitions);
        for (int i = 0; i < keys.length; i++) {
            out.get(target[i]).add(i);
        }
        return out;
    }

    /**
     * The partition of every item, in item order: {@link #partitionOf} its key, except that an item
     * whose partition already holds {@code hotThreshold} items spills to the least-loaded partition
     * (the lowest index among equals). Deterministic for a given key sequence. An item that spilled
     * may share its key with items of another partition: a consumer that needs every item of a key
     * together must merge equal keys across partitions afterwards.
     */
    public static int[] assign(long[] keys, int partitions, int hotThreshold) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (hotThreshold < 1) {
            throw new IllegalArgumentException("hotThreshold must be >= 1, was " + hotThreshold);
        }
        int[] load = new int[partitions];
        int[] target = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            int t = partitionOf(keys[i], partitions);
            if (load[t] >= hotThreshold) {
                t = leastLoaded(load);
            }
            load[t]++;
            target[i] = t;
        }
        return target;
    }

    /** Every item to every partition (a small build side joined against a partitioned probe side). */
    public static List<List<Integer>> broadcast(int items, int partitions) {
        List<List<Integer>> out = empty(partitions);
        for (List<Integer> p : out) {
            for (int i = 0; i < items; i++) {
                p.add(i);
            }
        }
        return out;
    }

    private static int leastLoaded(int[] load) {
        int best = 0;
        for (int p = 1; p < load.length; p++) {
            if (load[p] < load[best]) {
                best = p;
            }
        }
        return best;
    }

    private static List<List<Integer>> empty(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        List<List<Integer>> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            out.add(new ArrayList<>());
        }
        return out;
    }
}
