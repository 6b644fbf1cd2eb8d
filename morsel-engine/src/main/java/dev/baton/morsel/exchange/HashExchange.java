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
        if (hotThreshold < 1) {
            throw new IllegalArgumentException("hotThreshold must be >= 1, was " + hotThreshold);
        }
        List<List<Integer>> out = empty(partitions);
        for (int i = 0; i < keys.length; i++) {
            int target = partitionOf(keys[i], partitions);
            if (out.get(target).size() >= hotThreshold) {
                target = leastLoaded(out);
            }
            out.get(target).add(i);
        }
        return out;
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

    private static int leastLoaded(List<List<Integer>> out) {
        int best = 0;
        for (int p = 1; p < out.size(); p++) {
            if (out.get(p).size() < out.get(best).size()) {
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
