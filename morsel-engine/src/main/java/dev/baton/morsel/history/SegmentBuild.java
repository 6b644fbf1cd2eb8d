package dev.baton.morsel.history;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Combine;
import dev.baton.morsel.operator.LongAggTable;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The build after a {@link SegmentDeal}: a {@link PipelineKind#MERGE} pipeline with one task per bucket, each taking
 * every worker's rows of its dictionary segment together. A task interns its keys into that segment of the
 * dictionary (a bulk intern: every string it sees belongs there) and combines the rows in a {@link LongAggTable}
 * keyed by the segment-local index, sized from the rows it holds, so neither grows while it fills. A bucket's tables
 * are one segment's share: small enough to stay in the cache where one table of every key was not.
 *
 * <p>Ids keep {@link StringIds}' form ({@link StringIds#idOf}), so whoever reads the answer reads the same ids and
 * strings as from a dictionary filled row by row. The buckets' answers are gathered in id order.
 */
final class SegmentBuild {

    private SegmentBuild() {
    }

    static AggregateResult build(MorselScheduler scheduler, SegmentDeal deal, StringIds ids) {
        int slots = deal.slots();
        Combine[] combine = deal.combine();
        AggregateResult[] built = new AggregateResult[SegmentDeal.BUCKETS];
        List<Morsel> tasks = new ArrayList<>();
        long rows = 0;
        for (int k = 0; k < SegmentDeal.BUCKETS; k++) {
            tasks.add(new Morsel(k, k, k + 1, 0));
            for (SegmentDeal.Bucket b : deal.bucket(k)) {
                rows += b.rows;
            }
        }
        if (deal.hasStringSlot()) {
            internSlotStrings(scheduler, deal, ids);
        }
        scheduler.run(Pipeline.of("segment build", PipelineKind.MERGE, tasks, rows, (worker, task, ctx) -> {
            AggregateResult r = buildOne(task.id(), deal.bucket(task.id()), slots, combine, ids);
            if (deal.hasStringSlot()) {
                long[] values = r.values();
                for (int g = 0, at = deal.stringSlot(); g < r.rows(); g++, at += slots) {
                    values[at] = deal.idOfHandle(values[at]);
                }
            }
            built[task.id()] = r;
        }));
        return gather(built, slots);
    }

    /**
     * The wave before the build when rows carry a second string: one task per segment interns every worker's slot strings
     * of that segment and keeps each one's local index, which the build then reads to turn a row's handle into an id.
     */
    private static void internSlotStrings(MorselScheduler scheduler, SegmentDeal deal, StringIds ids) {
        int workers = deal.slotBucketsOf(0).length;
        int[][][] locals = new int[workers][StringIds.SEGMENTS][];
        List<Morsel> tasks = new ArrayList<>();
        for (int k = 0; k < StringIds.SEGMENTS; k++) {
            tasks.add(new Morsel(k, k, k + 1, 0));
        }
        scheduler.run(Pipeline.of("slot strings interned", PipelineKind.MERGE, tasks, 0, (worker, task, ctx) -> {
            int k = task.id();
            SegmentDeal.Bucket[] byWorker = deal.slotBucketsOf(k);
            int strings = 0;
            int bytes = 0;
            for (SegmentDeal.Bucket b : byWorker) {
                strings += b == null ? 0 : b.rows;
                bytes += b == null ? 0 : b.used;
            }
            if (strings > 0) {
                ids.expectIn(k, strings, bytes / strings);
            }
            for (int w = 0; w < byWorker.length; w++) {
                SegmentDeal.Bucket b = byWorker[w];
                if (b == null) {
                    continue;
                }
                int[] local = locals[w][k] = new int[b.rows];
                for (int r = 0; r < b.rows; r++) {
                    local[r] = ids.localIn(k, b.bytes, b.keyStart(r), b.keyLength(r), b.hash(r));
                }
            }
        }));
        deal.slotLocals = locals;
    }

    /** Bucket {@code k} of every worker, interned into segment {@code k} and combined by key. */
    static AggregateResult buildOne(int k, SegmentDeal.Bucket[] buckets, int slots, Combine[] combine, StringIds ids) {
        int rows = 0;
        int bytes = 0;
        for (SegmentDeal.Bucket b : buckets) {
            rows += b.rows;
            bytes += b.used;
        }
        if (rows == 0) {
            return new AggregateResult(new long[0], new long[0], slots);
        }
        LongAggTable table = new LongAggTable(slots, rows, combine);
        if (k == SegmentDeal.NULL_BUCKET) {
            for (SegmentDeal.Bucket b : buckets) {
                for (int r = 0; r < b.rows; r++) {
                    table.addAll(StringIds.NULL, b.values, r);
                }
            }
            return table.sorted();
        }
        ids.expectIn(k, rows, bytes / rows);
        for (SegmentDeal.Bucket b : buckets) {
            byte[] keyBytes = b.bytes;
            for (int r = 0; r < b.rows; r++) {
                int local = ids.localIn(k, keyBytes, b.keyStart(r), b.keyLength(r), b.hash(r));
                table.addAll(local, b.values, r);
            }
        }
        AggregateResult local = table.sorted();
        long[] keys = local.keys();
        for (int g = 0; g < local.rows(); g++) {
            keys[g] = StringIds.idOf(k, keys[g]); // ascending with the local index: still sorted
        }
        return local;
    }

    /**
     * The buckets' answers in one, keys ascending. A segment's ids are {@code local * SEGMENTS + segment + 1}: ascending
     * ids go local index by local index, segment by segment within one, so the gather steps through the local indexes
     * and takes from each bucket the row of that index, if it has one. Null's bucket (key 0) comes first.
     */
    static AggregateResult gather(AggregateResult[] built, int slots) {
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
        int out = copy(built[SegmentDeal.NULL_BUCKET], 0, built[SegmentDeal.NULL_BUCKET].rows(), keys, values, 0, slots);
        int[] head = new int[StringIds.SEGMENTS];
        for (long local = 0; local <= maxLocal; local++) {
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
        return new AggregateResult(keys, values, slots);
    }

    private static int copy(AggregateResult from, int start, int end, long[] keys, long[] values, int at, int slots) {
        System.arraycopy(from.keys(), start, keys, at, end - start);
        System.arraycopy(from.values(), start * slots, values, at * slots, (end - start) * slots);
        return at + end - start;
    }
}
