package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The build side of a hash join split by hash: a build row with key {@code k} goes to partition
 * {@link #partitionOf}{@code (k)} of its worker's partial, a {@link PipelineKind#MERGE}
 * pipeline ({@link #mergePipeline}) merges each partition's partials in parallel (one task per
 * partition, so no single thread merges the whole build side, as {@link HashJoinBuild} does), and a
 * probe looks a key up in the table of the same partition. Unlike the broadcast build, the merged
 * tables are {@code P} small ones; the answer is the same. Keys must be unique on the build side; a
 * repeated key keeps the payload merged last.
 *
 * <p>Run the build pipeline, then {@link #mergePipeline}, then the probe (for example
 * {@code scheduler.runWaves(List.of(build, merge, probe))}).
 */
public final class PartitionedHashJoinBuild implements JoinBuild {

    private final ColumnRef key;
    private final ColumnRef payload;
    private final int partitions;
    private final int expectedRows;
    /** [worker][partition] while building. */
    private final LongLongJoinTable[][] partials;
    /** [partition], filled by the merge pipeline. */
    private final LongLongJoinTable[] merged;

    public PartitionedHashJoinBuild(int workers, int partitions, ColumnRef key, ColumnRef payload, int expectedRows) {
        if (workers < 1 || partitions < 1) {
            throw new IllegalArgumentException("workers and partitions must be >= 1, were " + workers + " and " + partitions);
        }
        this.key = key;
        this.payload = payload;
        this.partitions = partitions;
        this.expectedRows = expectedRows;
        this.partials = new LongLongJoinTable[workers][];
        this.merged = new LongLongJoinTable[partitions];
    }

    /*
     * A worker's tables are made by the worker itself, on its first build batch: in parallel rather
     * than serially on the thread that assembles the query (Q14's build tables are megabytes, whose
     * allocation and first touch were a serial step before every run), and not at all for a worker
     * that builds nothing. Worker 0's tables receive the merge, so they are sized for a partition's
     * every row and merge without growing.
     */
    private LongLongJoinTable[] tablesOf(int worker) {
        LongLongJoinTable[] mine = partials[worker];
        if (mine == null) {
            mine = partials[worker] = new LongLongJoinTable[partitions];
            for (int p = 0; p < partitions; p++) {
                mine[p] = new LongLongJoinTable(rowsPerTable(worker));
            }
        }
        return mine;
    }

    private int rowsPerTable(int worker) {
        return (worker == 0 ? expectedRows / partitions : expectedRows / partials.length / partitions) + 16;
    }

    @Override
    public void consume(int worker, Batch b) {
        long[] k = b.scratch(0);
        long[] v = b.scratch(1);
        key.eval(b, k, 2);
        payload.eval(b, v, 2);
        LongLongJoinTable[] mine = tablesOf(worker);
        int[] sel = b.selection();
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            mine[partitionOf(k[i])].put(k[i], v[i]);
        }
    }

    /** The merge of every partition's partials: one task per partition, after the build's barrier. */
    public Pipeline mergePipeline(String name) {
        List<Morsel> tasks = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tasks.add(new Morsel(p, p, p + 1, 0));
        }
        return Pipeline.of(name, PipelineKind.MERGE, tasks, 0, (worker, m, ctx) -> {
            int p = m.id();
            LongLongJoinTable all = partials[0] != null ? partials[0][p] : new LongLongJoinTable(rowsPerTable(0));
            for (int w = 1; w < partials.length; w++) {
                if (partials[w] != null) {
                    all.mergeFrom(partials[w][p]);
                }
            }
            merged[p] = all;
        });
    }

    /**
     * The partition of key {@code k}: the high 32 bits of the key's hash scaled to {@code [0, P)} by a
     * multiply and a shift. No division per build row and per probe lookup; and not the low bits, which
     * {@link LongLongJoinTable} uses for its slot: a partition chosen by the low bits fills only every
     * P-th slot of its table, so its probes run along long clusters.
     */
    int partitionOf(long k) {
        return (int) (((LongAggTable.mix(k) >>> 32) * partitions) >>> 32);
    }

    /** Rows of partition {@code p}'s merged table. */
    public int partitionSize(int p) {
        return table(p).size();
    }

    @Override
    public long lookup(long k, long missing) {
        return table(partitionOf(k)).get(k, missing);
    }

    private LongLongJoinTable table(int p) {
        LongLongJoinTable t = merged[p];
        if (t == null) {
            throw new IllegalStateException("partition " + p + " of the join build is not merged: run mergePipeline after the build");
        }
        return t;
    }
}
