package dev.baton.morsel.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The answers of a {@link SegmentBuild}'s buckets in one, keys ascending, gathered in parallel. A segment's ids are
 * {@code local * SEGMENTS + segment + 1}: ascending ids go local index by local index, segment by segment within one.
 * The local indexes are cut into ranges, one task each; a task finds where its range starts in every bucket by binary
 * search (the buckets' keys ascend), and so where its rows start in the answer (every row of a lower id comes before),
 * then steps through its local indexes and takes from each bucket the row of that index, if it has one. Null's bucket
 * (key 0) comes first. Tasks write disjoint parts of the answer.
 */
final class IdOrderGather {

    /** Ranges per worker: a few, so a worker that finishes first takes another while a slow one holds one. */
    private static final int RANGES_PER_WORKER = 4;
    /** Local indexes a range has at least: below, the binary searches and the task cost more than the steps. */
    private static final long MIN_RANGE = 4_096;

    private IdOrderGather() {
    }

    static AggregateResult gather(MorselScheduler scheduler, AggregateResult[] built, int slots) {
        return gather(scheduler, built, slots, MIN_RANGE);
    }

    /** As {@link #gather(MorselScheduler, AggregateResult[], int)}, ranges holding at least {@code minRange} local indexes. */
    static AggregateResult gather(MorselScheduler scheduler, AggregateResult[] built, int slots, long minRange) {
        int total = 0;
        long maxLocal = -1;
        for (int k = 0; k < built.length; k++) {
            AggregateResult r = built[k];
            total += r.rows();
            if (k != SegmentDeal.NULL_BUCKET && r.rows() > 0) {
                maxLocal = Math.max(maxLocal, (r.key(r.rows() - 1) - 1) / StringIds.SEGMENTS);
            }
        }
        long[] keys = new long[total];
        long[] values = new long[total * slots];
        AggregateResult nulls = built[SegmentDeal.NULL_BUCKET];
        System.arraycopy(nulls.keys(), 0, keys, 0, nulls.rows());
        System.arraycopy(nulls.values(), 0, values, 0, nulls.rows() * slots);
        long locals = maxLocal + 1;
        int ranges = (int) Math.max(1, Math.min((long) scheduler.workers() * RANGES_PER_WORKER, locals / minRange));
        if (locals > 0) {
            List<Morsel> tasks = new ArrayList<>();
            for (int t = 0; t < ranges; t++) {
                tasks.add(new Morsel(t, t, t + 1, 0));
            }
            scheduler.run(Pipeline.of("segments gathered by id", PipelineKind.MERGE, tasks, total, (worker, task, ctx) -> {
                int t = task.id();
                gatherRange(built, locals * t / ranges, locals * (t + 1) / ranges, slots, keys, values);
            }));
        }
        return new AggregateResult(keys, values, slots);
    }

    /** Every bucket's rows whose local index is in [{@code from}, {@code to}), in id order, into their place in the answer. */
    private static void gatherRange(AggregateResult[] built, long from, long to, int slots, long[] keys, long[] values) {
        int[] head = new int[StringIds.SEGMENTS];
        int out = built[SegmentDeal.NULL_BUCKET].rows();
        for (int k = 0; k < StringIds.SEGMENTS; k++) {
            AggregateResult r = built[k];
            int at = Arrays.binarySearch(r.keys(), 0, r.rows(), StringIds.idOf(k, from));
            head[k] = at >= 0 ? at : -at - 1;
            out += head[k];
        }
        for (long local = from; local < to; local++) {
            for (int k = 0; k < StringIds.SEGMENTS; k++) {
                AggregateResult r = built[k];
                int h = head[k];
                if (h < r.rows() && r.key(h) == StringIds.idOf(k, local)) {
                    keys[out] = r.key(h);
                    System.arraycopy(r.values(), h * slots, values, out * slots, slots);
                    out++;
                    head[k] = h + 1;
                }
            }
        }
    }
}
