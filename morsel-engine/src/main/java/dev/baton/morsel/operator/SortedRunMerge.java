package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * Merges an aggregate's per-worker partials in parallel {@link PipelineKind#MERGE} waves: each
 * partial becomes a run sorted by key (one task per partial; the table's own arrays when it was
 * filled in key order, as clustered input fills it), then the key space is cut into ranges at keys
 * of the largest run; the caller counts each range's distinct keys block by block and allocates the
 * answer, then one task per range merges that range of every run into its place in the answer,
 * adding up equal keys. Ranges are disjoint and in key order, so their places follow each other.
 *
 * <p>Why not the hash exchange ({@link AggregateExchange}): it re-inserts every partial group into
 * a new table per partition and sorts each partition, about three times the CPU of the scan for
 * {@code GROUP BY l_orderkey} on two workers; runs keep the order the scan already produced. The
 * hash exchange stays for what needs partitions by hash (a Kafka exchange, spill of hot keys).
 */
final class SortedRunMerge {

    private SortedRunMerge() {
    }

    /** A sorted run: distinct keys ascending in {@code keys[start .. end)}, their slots at {@code values[row * slots ..]}. */
    record Run(long[] keys, long[] values, int start, int end) {
        static Run of(AggregateResult r) {
            return new Run(r.keys(), r.values(), 0, r.rows());
        }

        int rows() {
            return end - start;
        }
    }

    /*
     * No run, range or answer is copied more than once: each ascending stretch of a partial (a worker's
     * morsels of clustered input, in order; a stolen morsel starts another) is a run as it lies,
     * and each range is written straight into the answer, whose size the count of each range gives. Copying
     * every run, then every range, then concatenating the ranges on the calling thread (serial, tens
     * of MB for GROUP BY l_orderkey) cost that query's two-worker merge more than its parallel part.
     */
    static AggregateResult merge(MorselScheduler scheduler, LongAggTable[] partials, int slots, Combine[] combine) {
        return merge(scheduler, partials, slots, combine, null);
    }

    /**
     * As {@link #merge(MorselScheduler, LongAggTable[], int, Combine[])}, writing the answer into {@code room} (keys, then
     * values) when it holds every distinct key: arrays made before the merge, off the calling thread.
     */
    static AggregateResult merge(MorselScheduler scheduler, LongAggTable[] partials, int slots, Combine[] combine, AnswerRoom room) {
        Run[][] perPartial = new Run[partials.length][];
        if (Arrays.stream(partials).allMatch(LongAggTable::inFewRuns)) {
            // Each table knows its runs from its inserts: no wave (and no barrier) for what costs nothing.
            for (int p = 0; p < partials.length; p++) {
                perPartial[p] = partials[p].sortedRuns();
            }
        } else {
            scheduler.run(Pipeline.of("aggregate-sort-runs", PipelineKind.MERGE, tasks(partials.length), 0,
                    (w, m, ctx) -> perPartial[m.id()] = partials[m.id()].sortedRuns()));
        }
        Run[] runs = Arrays.stream(perPartial).flatMap(Arrays::stream).toArray(Run[]::new);
        long[] cuts = cuts(runs, 2 * scheduler.workers());
        int ranges = cuts.length + 1;
        int[] counts = countOnCaller(runs, cuts, slots, combine);
        if (counts == null) {
            int[] wave = counts = new int[ranges];
            scheduler.run(Pipeline.of("aggregate-count-ranges", PipelineKind.MERGE, tasks(ranges), 0,
                    (w, m, ctx) -> wave[m.id()] = mergeRange(runs, cuts, m.id(), slots, combine, null, null, 0, Integer.MAX_VALUE)));
        }
        int[] at = new int[ranges];
        int total = 0;
        for (int r = 0; r < ranges; r++) {
            at[r] = total;
            total += counts[r];
        }
        boolean fits = room != null && room.holds(total, slots);
        long[] keys = fits ? room.keys() : new long[total];
        long[] values = fits ? room.values() : new long[total * slots];
        scheduler.run(Pipeline.of("aggregate-merge-ranges", PipelineKind.MERGE, tasks(ranges), 0,
                (w, m, ctx) -> mergeRange(runs, cuts, m.id(), slots, combine, keys, values, at[m.id()], Integer.MAX_VALUE)));
        return new AggregateResult(keys, values, slots, total);
    }

    /** Arrays for an answer of up to {@code keys.length} groups, made before the merge knows how many there are. */
    record AnswerRoom(long[] keys, long[] values) {
        static AnswerRoom of(int groups, int slots) {
            return new AnswerRoom(new long[groups], new long[groups * slots]);
        }

        boolean holds(int groups, int slots) {
            return groups <= keys.length && (long) groups * slots <= values.length;
        }
    }

    /** Blocks and shared keys the calling thread may step through per range to count it, before a wave counts them instead. */
    static final int COUNT_ON_CALLER_STEPS = 4096;

    /*
     * Each range's distinct keys counted on the calling thread, block by block (blockEnd), or null when the runs interleave
     * finer than COUNT_ON_CALLER_STEPS steps allow (scattered keys: a wave counts them in parallel). GROUP BY l_orderkey's
     * runs interleave in a few dozen blocks, which count in microseconds; a wave of its own cost a barrier, and on a
     * shared machine the second worker often woke after the first had taken every task.
     */
    private static int[] countOnCaller(Run[] runs, long[] cuts, int slots, Combine[] combine) {
        int[] counts = new int[cuts.length + 1];
        for (int r = 0; r < counts.length; r++) {
            counts[r] = mergeRange(runs, cuts, r, slots, combine, null, null, 0, COUNT_ON_CALLER_STEPS);
            if (counts[r] < 0) {
                return null;
            }
        }
        return counts;
    }

    private static List<Morsel> tasks(int n) {
        List<Morsel> tasks = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            tasks.add(new Morsel(t, t, t + 1, 0));
        }
        return tasks;
    }

    /** Up to {@code parts - 1} ascending distinct keys of the largest run, evenly spaced. */
    static long[] cuts(Run[] runs, int parts) {
        Run largest = runs[0];
        for (Run r : runs) {
            largest = r.rows() > largest.rows() ? r : largest;
        }
        long[] cuts = new long[parts - 1];
        int n = 0;
        for (int p = 1; p < parts; p++) {
            long k = largest.rows() == 0 ? 0 : largest.keys()[largest.start() + (int) ((long) p * largest.rows() / parts)];
            if (largest.rows() > 0 && (n == 0 || k > cuts[n - 1])) {
                cuts[n++] = k;
            }
        }
        return Arrays.copyOf(cuts, n);
    }

    /**
     * Range {@code r} of the cuts merged into {@code keys}/{@code values} from row {@code at} (or only counted when they are
     * null); -1 when that takes more than {@code maxSteps} blocks and shared keys.
     */
    private static int mergeRange(Run[] runs, long[] cuts, int r, int slots, Combine[] combine, long[] keys, long[] values, int at,
            int maxSteps) {
        long from = r == 0 ? Long.MIN_VALUE : cuts[r - 1];
        long to = r == cuts.length ? Long.MAX_VALUE : cuts[r];
        return mergeRange(runs, from, to, r == cuts.length, slots, combine, keys, values, at, maxSteps);
    }

    /** Keys in {@code [from, to)} ({@code to} included when {@code last}) of every run, equal keys combined, as one run. */
    static AggregateResult mergeRange(AggregateResult[] results, long from, long to, boolean last, int slots, Combine[] combine) {
        Run[] runs = new Run[results.length];
        int total = 0;
        for (int r = 0; r < runs.length; r++) {
            runs[r] = Run.of(results[r]);
            total += runs[r].rows();
        }
        long[] keys = new long[total];
        long[] values = new long[total * slots];
        int n = mergeRange(runs, from, to, last, slots, combine, keys, values, 0, Integer.MAX_VALUE);
        return new AggregateResult(Arrays.copyOf(keys, n), Arrays.copyOf(values, n * slots), slots);
    }

    /**
     * Keys in {@code [from, to)} ({@code to} included when {@code last}) of every run, equal keys combined, written from
     * row {@code at} of {@code keys}/{@code values}; returns how many distinct keys the range holds. With {@code keys}
     * null it only counts them; -1 when that takes more than {@code maxSteps} blocks and shared keys.
     */
    private static int mergeRange(Run[] runs, long from, long to, boolean last, int slots, Combine[] combine,
            long[] keys, long[] values, int at, int maxSteps) {
        CombinePlan plan = keys == null ? null : CombinePlan.of(combine, slots);
        int[] head = new int[runs.length];
        int[] end = new int[runs.length];
        for (int r = 0; r < runs.length; r++) {
            head[r] = lowerBound(runs[r], from);
            end[r] = last ? runs[r].end() : lowerBound(runs[r], to);
        }
        boolean write = keys != null;
        int n = 0;
        long previous = 0;
        for (int steps = 0; ; steps++) {
            if (steps > maxSteps) {
                return -1;
            }
            int best = -1;
            long next = Long.MAX_VALUE; // the smallest head of the other runs
            for (int r = 0; r < runs.length; r++) {
                if (head[r] >= end[r]) {
                    continue;
                }
                long k = runs[r].keys()[head[r]];
                if (best < 0 || k < runs[best].keys()[head[best]]) {
                    if (best >= 0) {
                        next = Math.min(next, runs[best].keys()[head[best]]);
                    }
                    best = r;
                } else {
                    next = Math.min(next, k);
                }
            }
            if (best < 0) {
                break;
            }
            Run run = runs[best];
            long[] runKeys = run.keys();
            long k = runKeys[head[best]];
            if (n > 0 && previous == k) {
                if (write) {
                    plan.combine(values, (at + n - 1) * slots, run.values(), head[best] * slots);
                }
                head[best]++;
                continue;
            }
            // Clustered input leaves runs that interleave in long blocks: take the block below every other head at once.
            int start = head[best];
            int stop = blockEnd(runKeys, start, end[best], next);
            int len = stop - start;
            if (write) {
                System.arraycopy(runKeys, start, keys, at + n, len);
                System.arraycopy(run.values(), start * slots, values, (at + n) * slots, len * slots);
            }
            n += len;
            previous = runKeys[stop - 1];
            head[best] = stop;
        }
        return n;
    }

    /*
     * Where the block that starts at keys[start] (below bound) ends: the first index in (start, end) whose key is at
     * least bound, else end. Found by galloping (steps 1, 2, 4, ... then a binary search), not row by row: GROUP BY
     * l_orderkey's runs interleave in blocks of a morsel's keys (tens of thousands), so a range is a few dozen blocks and
     * counting its distinct keys costs microseconds, cheap enough to do on the calling thread without a wave of its own.
     */
    static int blockEnd(long[] keys, int start, int end, long bound) {
        int known = start; // keys[known] < bound
        int step = 1;
        while (known + step < end && keys[known + step] < bound) {
            known += step;
            step <<= 1;
        }
        int i = Arrays.binarySearch(keys, known + 1, Math.min(end, known + step), bound); // run keys are distinct
        return i >= 0 ? i : -i - 1;
    }

    private static int lowerBound(Run run, long v) {
        int i = Arrays.binarySearch(run.keys(), run.start(), run.end(), v); // a run's keys are distinct: a hit is the only one
        return i >= 0 ? i : -i - 1;
    }
}
