package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * The build side of a hash join split by hash: a build row with key {@code k} is appended to partition
 * {@link #partitionOf}{@code (k)} of its worker's buffers, a {@link PipelineKind#MERGE}
 * pipeline ({@link #mergePipeline}) makes each partition's table from every worker's buffer of it in
 * parallel (one task per partition, so no single thread builds the whole table, as {@link HashJoinBuild}
 * merges it), and a probe looks a key up in the table of the same partition. Unlike the broadcast build, the merged
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
    /** [worker]: the rows that worker read, by partition, while building. */
    private final Buffers[] buffers;
    /** [partition], filled by the merge pipeline when the keys are not dense. */
    private final LongLongJoinTable[] merged;
    /** [partition]: distinct keys the merge put. */
    private final int[] sizes;
    /** Every partition's keys in one table, when they are dense in their range; decided by the merge's first task. */
    private DenseJoinTable dense;
    private boolean denseDecided;

    public PartitionedHashJoinBuild(int workers, int partitions, ColumnRef key, ColumnRef payload, int expectedRows) {
        if (workers < 1 || partitions < 1) {
            throw new IllegalArgumentException("workers and partitions must be >= 1, were " + workers + " and " + partitions);
        }
        this.key = key;
        this.payload = payload;
        this.partitions = partitions;
        this.expectedRows = expectedRows;
        this.buffers = new Buffers[workers];
        this.merged = new LongLongJoinTable[partitions];
        this.sizes = new int[partitions];
    }

    /*
     * Why buffers and not a hash table per worker and partition: each row is then inserted into a table once, in the
     * merge, where tables per worker had every row of every worker but the first inserted twice (into its own table,
     * then into the first worker's), the merge's whole cost at two workers. Appending a key and a payload is two
     * sequential stores. A worker's buffers are made by the worker itself, on its first build batch (in parallel, and
     * not at all for a worker that builds nothing).
     */
    private static final class Buffers {
        final long[][] keys;
        final long[][] payloads;
        final int[] counts;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;

        Buffers(int partitions, int capacity) {
            keys = new long[partitions][capacity];
            payloads = new long[partitions][capacity];
            counts = new int[partitions];
        }

        void add(int p, long k, long v) {
            int n = counts[p];
            if (n == keys[p].length) {
                keys[p] = Arrays.copyOf(keys[p], n * 2);
                payloads[p] = Arrays.copyOf(payloads[p], n * 2);
            }
            keys[p][n] = k;
            payloads[p][n] = v;
            counts[p] = n + 1;
            min = Math.min(min, k);
            max = Math.max(max, k);
        }
    }

    private Buffers buffersOf(int worker) {
        Buffers mine = buffers[worker];
        if (mine == null) {
            int share = expectedRows / buffers.length / partitions;
            mine = buffers[worker] = new Buffers(partitions, Math.max(16, share + share / 4));
        }
        return mine;
    }

    @Override
    public void consume(int worker, Batch b) {
        long[] k = b.scratch(0);
        long[] v = b.scratch(1);
        key.eval(b, k, 2);
        payload.eval(b, v, 2);
        Buffers mine = buffersOf(worker);
        int[] sel = b.selection();
        for (int j = 0, n = b.selected(); j < n; j++) {
            int i = sel[j];
            mine.add(partitionOf(k[i]), k[i], v[i]);
        }
    }

    /** Each partition's table from every worker's buffer of it: one task per partition, after the build's barrier. */
    public Pipeline mergePipeline(String name) {
        List<Morsel> tasks = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tasks.add(new Morsel(p, p, p + 1, 0));
        }
        return Pipeline.of(name, PipelineKind.MERGE, tasks, 0, (worker, m, ctx) -> {
            int p = m.id();
            DenseJoinTable d = denseTable();
            if (d != null) {
                sizes[p] = putInto(d, p);
                return;
            }
            int rows = 0;
            for (Buffers w : buffers) {
                rows += w == null ? 0 : w.counts[p];
            }
            LongLongJoinTable table = new LongLongJoinTable(rows);
            for (Buffers w : buffers) { // in worker order: a repeated key keeps the payload put last
                if (w != null) {
                    long[] ks = w.keys[p];
                    long[] vs = w.payloads[p];
                    for (int i = 0, n = w.counts[p]; i < n; i++) {
                        table.put(ks[i], vs[i]);
                    }
                }
            }
            sizes[p] = table.size();
            merged[p] = table;
        });
    }

    /*
     * Why a dense table when the keys allow it: a build keyed by a surrogate key (TPC-H's p_partkey, 1 .. rows) needs no
     * hashing, and its hash tables, sized two to four slots a row and filled with an empty marker, cost more to make than
     * the build pipeline that read the rows. The partitions' tasks write one shared table, each its own keys (a key lies
     * in one partition), in worker order as before.
     */
    private synchronized DenseJoinTable denseTable() {
        if (!denseDecided) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            long rows = 0;
            for (Buffers w : buffers) {
                if (w != null) {
                    min = Math.min(min, w.min);
                    max = Math.max(max, w.max);
                    for (int c : w.counts) {
                        rows += c;
                    }
                }
            }
            dense = DenseJoinTable.forRange(min, max, rows);
            denseDecided = true;
        }
        return dense;
    }

    private int putInto(DenseJoinTable d, int p) {
        int distinct = 0;
        for (Buffers w : buffers) { // in worker order: a repeated key keeps the payload put last
            if (w != null) {
                long[] ks = w.keys[p];
                long[] vs = w.payloads[p];
                for (int i = 0, n = w.counts[p]; i < n; i++) {
                    distinct += d.put(ks[i], vs[i]) ? 1 : 0;
                }
            }
        }
        return distinct;
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

    /** Distinct keys of partition {@code p}, after the merge. */
    public int partitionSize(int p) {
        if (dense == null) {
            table(p);
        }
        return sizes[p];
    }

    /** Whether the merge made one dense table (keys within {@link DenseJoinTable#RANGE_PER_ROW} times the rows of each other). */
    public boolean isDense() {
        return dense != null;
    }

    @Override
    public long lookup(long k, long missing) {
        DenseJoinTable d = dense;
        return d != null ? d.get(k, missing) : table(partitionOf(k)).get(k, missing);
    }

    private LongLongJoinTable table(int p) {
        LongLongJoinTable t = merged[p];
        if (t == null) {
            throw new IllegalStateException("partition " + p + " of the join build is not merged: run mergePipeline after the build");
        }
        return t;
    }
}
