package dev.baton.morsel.history;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Combine;
import dev.baton.morsel.operator.CombinePlan;
import dev.baton.morsel.operator.LongAggTable;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The build after a {@link SegmentDeal}: a {@link PipelineKind#MERGE} pipeline with one task per bucket, each taking
 * every worker's rows of its dictionary segment together. A task interns its keys into that segment of the
 * dictionary (a bulk intern: every string it sees belongs there) and combines the rows by segment-local index: placed
 * in an array over the stretch of indexes its keys take, read out in index order (ascending ids, no sort), or, when
 * few keys are spread over many indexes, in a {@link LongAggTable} sized from the rows it holds, then sorted. A
 * bucket's arrays are one segment's share: small enough to stay in the cache where one table of every key was not.
 *
 * <p>Ids keep {@link StringIds}' form ({@link StringIds#idOf}), so whoever reads the answer reads the same ids and
 * strings as from a dictionary filled row by row. The buckets' answers are gathered in id order ({@link IdOrderGather}).
 */
final class SegmentBuild {

    /**
     * A segment's rows are placed by local index when their local indexes span at most this many times their count;
     * wider (a small scope's keys among a large dictionary's), a table is cheaper than the array.
     */
    private static final int PLACED_SPREAD = 4;

    private SegmentBuild() {
    }

    static AggregateResult build(MorselScheduler scheduler, SegmentDeal deal, StringIds ids) {
        return build(scheduler, deal, ids, ids);
    }

    /**
     * As {@link #build(MorselScheduler, SegmentDeal, StringIds)}, the keys interned in {@code keyIds} and a row's second
     * string in {@code ids}: the sites' keys meet no other string, so in a dictionary of their own each segment's table is
     * half the size while it is filled (the request ids it would share it with are what the answers join on).
     */
    static AggregateResult build(MorselScheduler scheduler, SegmentDeal deal, StringIds keyIds, StringIds ids) {
        int slots = deal.slots();
        Combine[] combine = deal.combine();
        AggregateResult[] built = new AggregateResult[SegmentDeal.BUCKETS];
        List<Morsel> tasks = new ArrayList<>();
        long rows = 0;
        for (int k = 0; k < SegmentDeal.BUCKETS; k++) {
            tasks.add(new Morsel(k, k, k + 1, 0));
            for (DealtRows b : deal.bucket(k)) {
                rows += b.rows();
            }
        }
        if (deal.hasStringSlot()) {
            internSlotStrings(scheduler, deal, ids);
        }
        scheduler.run(Pipeline.of("segment build", PipelineKind.MERGE, tasks, rows, (worker, task, ctx) -> {
            AggregateResult r = buildOne(task.id(), deal.bucket(task.id()), slots, combine, keyIds);
            if (deal.hasStringSlot()) {
                long[] values = r.values();
                for (int g = 0, at = deal.stringSlot(); g < r.rows(); g++, at += slots) {
                    values[at] = deal.idOfHandle(values[at]);
                }
            }
            built[task.id()] = r;
        }));
        return IdOrderGather.gather(scheduler, built, slots);
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
            DealtRows[] byWorker = deal.slotBucketsOf(k);
            int strings = 0;
            long bytes = 0;
            for (DealtRows b : byWorker) {
                strings += b == null ? 0 : b.rows();
                bytes += b == null ? 0 : b.keyBytes();
            }
            if (strings > 0) {
                ids.expectIn(k, strings, (int) (bytes / strings));
            }
            for (int w = 0; w < byWorker.length; w++) {
                DealtRows b = byWorker[w];
                if (b == null) {
                    continue;
                }
                int[] local = locals[w][k] = new int[b.rows()];
                for (int r = 0; r < local.length; r++) {
                    local[r] = ids.localIn(k, b.keyBytes(r), b.keyStart(r), b.keyLength(r), b.hash(r));
                }
            }
        }));
        deal.slotLocals = locals;
    }

    /** Bucket {@code k} of every worker, interned into segment {@code k} and combined by key. */
    static AggregateResult buildOne(int k, DealtRows[] buckets, int slots, Combine[] combine, StringIds ids) {
        int rows = 0;
        long bytes = 0;
        for (DealtRows b : buckets) {
            rows += b.rows();
            bytes += b.keyBytes();
        }
        if (rows == 0) {
            return new AggregateResult(new long[0], new long[0], slots);
        }
        if (k == SegmentDeal.NULL_BUCKET) {
            LongAggTable table = new LongAggTable(slots, rows, combine);
            for (DealtRows b : buckets) {
                for (int r = 0; r < b.rows(); r++) {
                    table.addAt(StringIds.NULL, b.values(r), b.valuesAt(r));
                }
            }
            return table.sorted();
        }
        ids.expectIn(k, rows, (int) (bytes / rows));
        int[] locals = new int[rows];
        int min = Integer.MAX_VALUE;
        int max = -1;
        int i = 0;
        for (DealtRows b : buckets) {
            for (int r = 0; r < b.rows(); r++, i++) {
                int local = locals[i] = ids.localIn(k, b.keyBytes(r), b.keyStart(r), b.keyLength(r), b.hash(r));
                min = Math.min(min, local);
                max = Math.max(max, local);
            }
        }
        long spread = (long) max - min + 1;
        return spread <= (long) PLACED_SPREAD * rows ? placed(k, buckets, locals, min, (int) spread, slots, combine)
                : hashed(k, buckets, locals, slots, combine);
    }

    /**
     * The rows combined in place by local index, read out in that order: ascending ids with no hash and no sort. A
     * query's keys of one segment are most of a stretch of its local indexes (a whole history's sites were interned
     * together, and its answers' requests by the sites before them), so the array is about the groups' size.
     */
    private static AggregateResult placed(int k, DealtRows[] buckets, int[] locals, int min, int spread, int slots,
            Combine[] combine) {
        long[] acc = new long[spread * slots];
        if (combine != null) {
            for (int s = 0; s < slots; s++) {
                long identity = combine[s].identity();
                for (int at = s; at < acc.length; at += slots) {
                    acc[at] = identity;
                }
            }
        }
        CombinePlan plan = CombinePlan.of(combine, slots);
        boolean[] seen = new boolean[spread];
        int groups = 0;
        int i = 0;
        for (DealtRows b : buckets) {
            for (int r = 0; r < b.rows(); r++, i++) {
                int at = locals[i] - min;
                if (!seen[at]) {
                    seen[at] = true;
                    groups++;
                }
                plan.combine(acc, at * slots, b.values(r), b.valuesAt(r));
            }
        }
        long[] keys = new long[groups];
        if (groups == spread) { // every local index of the stretch is a group: the array is the answer
            for (int g = 0; g < groups; g++) {
                keys[g] = StringIds.idOf(k, min + g);
            }
            return new AggregateResult(keys, acc, slots);
        }
        long[] values = new long[groups * slots];
        for (int at = 0, g = 0; at < spread; at++) {
            if (seen[at]) {
                keys[g] = StringIds.idOf(k, min + at);
                System.arraycopy(acc, at * slots, values, g * slots, slots);
                g++;
            }
        }
        return new AggregateResult(keys, values, slots);
    }

    /** The rows combined in a table keyed by local index, then sorted: for a few keys spread over many local indexes. */
    private static AggregateResult hashed(int k, DealtRows[] buckets, int[] locals, int slots, Combine[] combine) {
        LongAggTable table = new LongAggTable(slots, locals.length, combine);
        int i = 0;
        for (DealtRows b : buckets) {
            for (int r = 0; r < b.rows(); r++) {
                table.addAt(locals[i++], b.values(r), b.valuesAt(r));
            }
        }
        AggregateResult local = table.sorted();
        long[] keys = local.keys();
        for (int g = 0; g < local.rows(); g++) {
            keys[g] = StringIds.idOf(k, keys[g]); // ascending with the local index: still sorted
        }
        return local;
    }
}
