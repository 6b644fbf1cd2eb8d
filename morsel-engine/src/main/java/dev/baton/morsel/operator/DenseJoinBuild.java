package dev.baton.morsel.operator;

import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.data.ValueRange;

/**
 * The build side of a join whose keys lie in a range known before the build and dense in it (a surrogate key such as
 * TPC-H's {@code p_partkey}): every worker writes each row it reads straight into one shared {@link DenseJoinTable} at
 * {@code key - min}, so the build is one wave, with no buffers and no merge, and a probe reads the table after the build's
 * barrier. Where the range is not known up front, or too wide for the rows, use {@link PartitionedHashJoinBuild}.
 *
 * <p>Keys must be unique on the build side, as for every build here; a repeated key keeps one of its payloads (the last
 * read at one worker; at several, whichever worker wrote it last, as the partitioned build's choice depended on which
 * worker had read which morsel). A payload must not be {@link HashJoinProbe#MISSING}. A key outside the range fails the
 * build (the range is wrong, not the row). Thread contract: {@link #consume} from any number of workers at once;
 * {@link #lookup} after the build's barrier.
 */
public final class DenseJoinBuild implements JoinBuild {

    private final ColumnRef key;
    private final ColumnRef payload;
    private final DenseJoinTable table;

    private DenseJoinBuild(ColumnRef key, ColumnRef payload, DenseJoinTable table) {
        this.key = key;
        this.payload = payload;
        this.table = table;
    }

    /**
     * A build for {@code rows} keys within {@code range}, or {@code null} when the range is unknown ({@code null}) or
     * more than {@link DenseJoinTable#RANGE_PER_ROW} times the rows.
     */
    public static DenseJoinBuild forRange(ValueRange range, long rows, ColumnRef key, ColumnRef payload) {
        DenseJoinTable t = range == null ? null : DenseJoinTable.forRange(range.min(), range.max(), rows);
        return t == null ? null : new DenseJoinBuild(key, payload, t);
    }

    /**
     * A build keyed by source column {@code keyColumn} of {@code scan}, sized from the bounds its source knows (see
     * {@link #forRange}); {@code null} where those give no dense table.
     */
    public static DenseJoinBuild over(ScanPipeline scan, String keyColumn, ColumnRef payload) {
        ColumnRef key = scan.col(keyColumn); // throws for a column the source does not have
        PageSource source = scan.source();
        return forRange(source.valueRange(source.columns().indexOf(keyColumn)), source.rowCount(), key, payload);
    }

    /*
     * Why the workers write one table as they read: the partitioned build appended every row to a worker's buffers and
     * then, in a second wave, copied them into the dense table; at two workers the buffers of a worker that read more
     * than its share grew by copies, and the second wave waited for a woken thread. A key lies in one slot and the
     * build's keys are unique, so two workers never write one slot; the build's barrier publishes the table to the probe.
     */
    @Override
    public void consume(int worker, Batch b) {
        long[] k = b.scratch(0);
        long[] v = b.scratch(1);
        key.eval(b, k, 2);
        payload.eval(b, v, 2);
        int[] sel = b.selection();
        DenseJoinTable t = table;
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            t.put(k[i], v[i]);
        }
    }

    @Override
    public long lookup(long k, long missing) {
        return table.get(k, missing);
    }
}
