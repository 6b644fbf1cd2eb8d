package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * Merges an aggregate's per-worker partials in two parallel {@link PipelineKind#MERGE} waves: each
 * partial becomes a run sorted by key (one task per partial; a copy when the partial was filled in
 * key order, as clustered input fills it), then the key space is cut into ranges at keys of the
 * largest run and one task per range merges that range of every run, adding up equal keys. Ranges
 * are disjoint and in key order, so the answer is their concatenation.
 *
 * <p>Why not the hash exchange ({@link AggregateExchange}): it re-inserts every partial group into
 * a new table per partition and sorts each partition, about three times the CPU of the scan for
 * {@code GROUP BY l_orderkey} on two workers; runs keep the order the scan already produced. The
 * hash exchange stays for what needs partitions by hash (a Kafka exchange, spill of hot keys).
 */
final class SortedRunMerge {

    private SortedRunMerge() {
    }

    static AggregateResult merge(MorselScheduler scheduler, LongAggTable[] partials, int slots, Combine[] combine) {
        AggregateResult[] runs = new AggregateResult[partials.length];
        scheduler.run(Pipeline.of("aggregate-sort-runs", PipelineKind.MERGE, tasks(partials.length), 0,
                (w, m, ctx) -> runs[m.id()] = partials[m.id()].sorted()));
        long[] cuts = cuts(runs, 2 * scheduler.workers());
        AggregateResult[] ranges = new AggregateResult[cuts.length + 1];
        scheduler.run(Pipeline.of("aggregate-merge-ranges", PipelineKind.MERGE, tasks(ranges.length), 0, (w, m, ctx) -> {
            int r = m.id();
            long from = r == 0 ? Long.MIN_VALUE : cuts[r - 1];
            long to = r == cuts.length ? Long.MAX_VALUE : cuts[r];
            ranges[r] = mergeRange(runs, from, to, r == cuts.length, slots, combine);
        }));
        return concat(ranges, slots);
    }

    private static List<Morsel> tasks(int n) {
        List<Morsel> tasks = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            tasks.add(new Morsel(t, t, t + 1, 0));
        }
        return tasks;
    }

    /** Up to {@code parts - 1} ascending distinct keys of the largest run, evenly spaced. */
    static long[] cuts(AggregateResult[] runs, int parts) {
        AggregateResult largest = runs[0];
        for (AggregateResult r : runs) {
            largest = r.rows() > largest.rows() ? r : largest;
        }
        long[] cuts = new long[parts - 1];
        int n = 0;
        for (int p = 1; p < parts; p++) {
            long k = largest.rows() == 0 ? 0 : largest.key((int) ((long) p * largest.rows() / parts));
            if (largest.rows() > 0 && (n == 0 || k > cuts[n - 1])) {
                cuts[n++] = k;
            }
        }
        return Arrays.copyOf(cuts, n);
    }

    /** Keys in {@code [from, to)} ({@code to} included when {@code last}) of every run, equal keys combined. */
    static AggregateResult mergeRange(AggregateResult[] runs, long from, long to, boolean last, int slots, Combine[] combine) {
        int[] head = new int[runs.length];
        int[] end = new int[runs.length];
        int total = 0;
        for (int r = 0; r < runs.length; r++) {
            head[r] = lowerBound(runs[r].keys(), from);
            end[r] = last ? runs[r].rows() : lowerBound(runs[r].keys(), to);
            total += end[r] - head[r];
        }
        long[] keys = new long[total];
        long[] values = new long[total * slots];
        int n = 0;
        while (true) {
            int best = -1;
            long next = Long.MAX_VALUE; // the smallest head of the other runs
            for (int r = 0; r < runs.length; r++) {
                if (head[r] >= end[r]) {
                    continue;
                }
                long k = runs[r].key(head[r]);
                if (best < 0 || k < runs[best].key(head[best])) {
                    if (best >= 0) {
                        next = Math.min(next, runs[best].key(head[best]));
                    }
                    best = r;
                } else {
                    next = Math.min(next, k);
                }
            }
            if (best < 0) {
                break;
            }
            AggregateResult run = runs[best];
            long k = run.key(head[best]);
            if (n > 0 && keys[n - 1] == k) {
                Combine.combine(combine, slots, values, (n - 1) * slots, run.values(), head[best] * slots);
                head[best]++;
                continue;
            }
            // Clustered input leaves runs that interleave in long blocks: copy the block below every other head at once.
            int start = head[best];
            int stop = start + 1;
            long[] runKeys = run.keys();
            while (stop < end[best] && runKeys[stop] < next) {
                stop++;
            }
            int len = stop - start;
            System.arraycopy(runKeys, start, keys, n, len);
            System.arraycopy(run.values(), start * slots, values, n * slots, len * slots);
            n += len;
            head[best] = stop;
        }
        return new AggregateResult(Arrays.copyOf(keys, n), Arrays.copyOf(values, n * slots), slots);
    }

    private static int lowerBound(long[] sorted, long v) {
        int i = Arrays.binarySearch(sorted, v); // a run's keys are distinct: a hit is the only one
        return i >= 0 ? i : -i - 1;
    }

    private static AggregateResult concat(AggregateResult[] ranges, int slots) {
        int total = 0;
        for (AggregateResult r : ranges) {
            total += r.rows();
        }
        long[] keys = new long[total];
        long[] values = new long[total * slots];
        int at = 0;
        for (AggregateResult r : ranges) {
            System.arraycopy(r.keys(), 0, keys, at, r.rows());
            System.arraycopy(r.values(), 0, values, at * slots, r.rows() * slots);
            at += r.rows();
        }
        return new AggregateResult(keys, values, slots);
    }
}
