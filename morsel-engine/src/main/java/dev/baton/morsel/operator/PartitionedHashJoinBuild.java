package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The build side of a hash join split by hash: a build row with key {@code k} goes to partition
 * {@link HashExchange#partitionOf}{@code (k, P)} of its worker's partial, a {@link PipelineKind#MERGE}
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
        this.partials = new LongLongJoinTable[workers][partitions];
        this.merged = new LongLongJoinTable[partitions];
        for (int w = 0; w < workers; w++) {
            for (int p = 0; p < partitions; p++) {
                partials[w][p] = new LongLongJoinTable(expectedRows / workers / partitions + 16);
            }
        }
    }

    @Override
    public void consume(int worker, Batch b) {
        long[] k = b.scratch(0);
        long[] v = b.scratch(1);
        key.eval(b, k, 2);
        payload.eval(b, v, 2);
        LongLongJoinTable[] mine = partials[worker];
        int[] sel = b.selection();
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            mine[HashExchange.partitionOf(k[i], partitions)].put(k[i], v[i]);
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
            LongLongJoinTable all = partials[0][p];
            for (int w = 1; w < partials.length; w++) {
                all.mergeFrom(partials[w][p]);
            }
            merged[p] = all;
        });
    }

    /** Rows of partition {@code p}'s merged table. */
    public int partitionSize(int p) {
        return table(p).size();
    }

    @Override
    public long lookup(long k, long missing) {
        return table(HashExchange.partitionOf(k, partitions)).get(k, missing);
    }

    private LongLongJoinTable table(int p) {
        LongLongJoinTable t = merged[p];
        if (t == null) {
            throw new IllegalStateException("partition " + p + " of the join build is not merged: run mergePipeline after the build");
        }
        return t;
    }
}
