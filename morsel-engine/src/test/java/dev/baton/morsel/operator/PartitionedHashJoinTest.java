package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build side split by hash over partitions answers what the broadcast build answers. */
class PartitionedHashJoinTest {

    @TempDir
    Path dir;

    /** GROUP BY payload: sum(fact value), count over fact ⋈ dim, with the given build. */
    private static AggregateResult join(PageFile d, PageFile f, int workers, Integer partitions, boolean dense) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline buildScan = ScanPipeline.over(d);
            JoinBuild build = partitions == null
                    ? new HashJoinBuild(workers, buildScan.col("key"), buildScan.col("payload"), 4_000)
                    : new PartitionedHashJoinBuild(workers, partitions, buildScan.col("key"), buildScan.col("payload"), 4_000);
            buildScan.into(build);
            ScanPipeline probe = ScanPipeline.over(f);
            ColumnRef payload = probe.probe(build, probe.col("fk"), "payload");
            HashAggregate agg = HashAggregate.groupBy(payload, 64).sum(probe.col("v")).count();
            probe.into(agg);
            var buildPipeline = buildScan.pipeline("build", PipelineKind.BUILD, Morsels.partition(0, d.pageCount(), 1, 1), workers);
            var probePipeline = probe.probePipeline("probe", Morsels.partition(0, f.pageCount(), 1, 1), workers, List.of("build"));
            if (build instanceof PartitionedHashJoinBuild p) {
                s.runWaves(List.of(buildPipeline, p.mergePipeline("build-merge"), probePipeline));
                assertThat(p.isDense()).as("dense table").isEqualTo(dense);
                int rows = 0;
                for (int i = 0; i < partitions; i++) {
                    assertThat(p.partitionSize(i)).as("partition " + i).isPositive();
                    rows += p.partitionSize(i);
                }
                assertThat(rows).isEqualTo(d.rowCount());
            } else {
                s.runWaves(List.of(buildPipeline, probePipeline));
            }
            return agg.result(s);
        }
    }

    @Test
    void shouldAnswerAsTheBroadcastBuildWhateverThePartitionAndWorkerCount() {
        assertSameAnswers(3, true); // keys within 3x the rows of each other: one dense table
    }

    @Test
    void shouldAnswerAsTheBroadcastBuildWithKeysTooSparseForADenseTable() {
        assertSameAnswers(11, false);
    }

    /** Build keys {@code i * step - 2000} (some negative), fact keys that match about a third of the rows. */
    private void assertSameAnswers(long step, boolean dense) {
        long[][] dim = new long[4_000][];
        for (int i = 0; i < dim.length; i++) {
            dim[i] = new long[] {i * step - 2_000, i % 41};
        }
        long[][] fact = new long[30_000][];
        for (int i = 0; i < fact.length; i++) {
            fact[i] = new long[] {(i * 7L) % (step * 4_000 + 1_000) - 2_000, i % 17};
        }
        PageFile d = Tables.write(dir, "dim" + step, List.of("key", "payload"), dim);
        PageFile f = Tables.write(dir, "fact" + step, List.of("fk", "v"), fact);
        AggregateResult broadcast = join(d, f, 1, null, dense);
        assertThat(broadcast.rows()).isEqualTo(41);
        for (int workers : new int[] {1, 2}) {
            for (int partitions : new int[] {1, 4, 7}) {
                AggregateResult partitioned = join(d, f, workers, partitions, dense);
                assertThat(partitioned.rowKeys()).as(workers + " workers, " + partitions + " partitions").containsExactly(broadcast.rowKeys());
                assertThat(partitioned.rowValues()).as(workers + " workers, " + partitions + " partitions").containsExactly(broadcast.rowValues());
            }
        }
    }

    @Test
    void shouldRefuseALookupBeforeTheMerge() {
        PageFile d = Tables.write(dir, "one", List.of("key", "payload"), new long[][] {{1, 2}});
        ScanPipeline scan = ScanPipeline.over(d);
        PartitionedHashJoinBuild build = new PartitionedHashJoinBuild(1, 2, scan.col("key"), scan.col("payload"), 1);
        assertThatThrownBy(() -> build.lookup(1, -1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("run mergePipeline");
    }
}
