package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.ValueRange;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineFailedException;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A build written straight into one table by key answers what the broadcast build answers, and only where it fits. */
class DenseJoinBuildTest {

    @TempDir
    Path dir;

    /** GROUP BY payload: sum(fact value), count over fact ⋈ dim; {@code dense} picks the build. */
    private static AggregateResult join(PageFile d, PageFile f, int workers, boolean dense) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline buildScan = ScanPipeline.over(d);
            JoinBuild build = dense ? DenseJoinBuild.over(buildScan, "key", buildScan.col("payload"))
                    : new HashJoinBuild(workers, buildScan.col("key"), buildScan.col("payload"), 4_000);
            assertThat(build).as("a dense build for these keys").isNotNull();
            buildScan.into(build);
            ScanPipeline probe = ScanPipeline.over(f);
            ColumnRef payload = probe.probe(build, probe.col("fk"), "payload");
            HashAggregate agg = HashAggregate.groupBy(payload, 64).sum(probe.col("v")).count();
            probe.into(agg);
            s.runWaves(List.of(buildScan.pipeline("build", PipelineKind.BUILD, Morsels.partition(0, d.pageCount(), 1, 1), workers),
                    probe.probePipeline("probe", Morsels.partition(0, f.pageCount(), 1, 1), workers, List.of("build"))));
            return agg.result(s);
        }
    }

    /** Build keys {@code i * step - 2000} (some negative), fact keys that match about a third of the rows. */
    private PageFile dim(long step) {
        long[][] dim = new long[4_000][];
        for (int i = 0; i < dim.length; i++) {
            dim[i] = new long[] {i * step - 2_000, i % 41};
        }
        return Tables.write(dir, "dim" + step, List.of("key", "payload"), dim);
    }

    @Test
    void shouldAnswerAsTheBroadcastBuildWhateverTheWorkerCount() {
        PageFile d = dim(3);
        long[][] fact = new long[30_000][];
        for (int i = 0; i < fact.length; i++) {
            fact[i] = new long[] {(i * 7L) % (3 * 4_000 + 1_000) - 2_000, i % 17};
        }
        PageFile f = Tables.write(dir, "fact", List.of("fk", "v"), fact);
        AggregateResult broadcast = join(d, f, 1, false);
        assertThat(broadcast.rows()).isEqualTo(41);
        for (int workers : new int[] {1, 2, 3}) {
            AggregateResult direct = join(d, f, workers, true);
            assertThat(direct.rowKeys()).as(workers + " workers").containsExactly(broadcast.rowKeys());
            assertThat(direct.rowValues()).as(workers + " workers").containsExactly(broadcast.rowValues());
        }
    }

    @Test
    void shouldNotBuildWhereThePagesBoundNoDenseRange() {
        ScanPipeline sparse = ScanPipeline.over(dim(11));
        assertThat(DenseJoinBuild.over(sparse, "key", sparse.col("payload"))).as("keys 11 apart").isNull();
        long[][] wide = new long[100][];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = new long[] {i == 0 ? Long.MIN_VALUE + 1 : i, i};
        }
        ScanPipeline unbounded = ScanPipeline.over(Tables.write(dir, "wide", List.of("key", "payload"), wide));
        assertThat(DenseJoinBuild.over(unbounded, "key", unbounded.col("payload"))).as("a LONG page bounds nothing").isNull();
    }

    @Test
    void shouldFailTheBuildForAKeyOutsideItsRange() {
        PageFile d = dim(1);
        ScanPipeline scan = ScanPipeline.over(d);
        DenseJoinBuild build = DenseJoinBuild.forRange(new ValueRange(0, 9_999), d.rowCount(), scan.col("key"), scan.col("payload"));
        scan.into(build);
        try (MorselScheduler s = new MorselScheduler(1, 1, MorselMetrics.noop())) {
            assertThatThrownBy(() -> s.run(scan.pipeline("build", PipelineKind.BUILD, Morsels.partition(0, d.pageCount(), 1, 1), 1)))
                    .isInstanceOf(PipelineFailedException.class).hasRootCauseMessage("join key -2000 lies outside the dense table's range [0, 9999]");
        }
    }
}
