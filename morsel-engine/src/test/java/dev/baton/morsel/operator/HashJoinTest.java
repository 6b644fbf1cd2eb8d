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
import dev.baton.morsel.scheduler.PipelineReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hash-join build and probe: alone, in waves, and with every probe row on one key (the build is broadcast). */
class HashJoinTest {

    @TempDir
    Path dir;

    @Test
    void shouldProbeTheBuildAndKeepOnlyMatchedRowsWithTheirPayload() {
        long[][] dim = new long[300][];
        for (int i = 0; i < dim.length; i++) {
            dim[i] = new long[] {i * 2L, i % 3}; // even keys only
        }
        PageFile d = Tables.write(dir, "dim", List.of("key", "payload"), dim);
        ScanPipeline build = ScanPipeline.over(d);
        HashJoinBuild table = new HashJoinBuild(1, build.col("key"), build.col("payload"), 300);
        Tables.survivors(d); // nothing consumed yet
        Batch b = new Batch(d, 0);
        for (int p = 0; p < d.pageCount(); p++) {
            b.reset(p);
            table.consume(0, b);
        }
        long[][] fact = new long[100][];
        for (int i = 0; i < fact.length; i++) {
            fact[i] = new long[] {i};
        }
        PageFile f = Tables.write(dir, "fact", List.of("fk"), fact);
        ScanPipeline probe = ScanPipeline.over(f);
        ColumnRef payload = probe.probe(table, probe.col("fk"), "payload");
        Batch pb = new Batch(f, 1);
        int matched = 0;
        for (int p = 0; p < f.pageCount(); p++) {
            pb.reset(p);
            new HashJoinProbe(table, probe.col("fk"), payload).apply(pb);
            for (int j = 0; j < pb.selected(); j++) {
                int i = pb.selection()[j];
                long key = f.column(p, 0).get(i);
                assertThat(key % 2).isZero();
                assertThat(pb.computed(payload.index())[i]).isEqualTo(key / 2 % 3);
                matched++;
            }
        }
        assertThat(matched).isEqualTo(50);
    }

    @Test
    void shouldJoinASkewedProbeSideOnEveryWorkerAfterItsBuild() {
        long[][] dim = new long[1_000][];
        for (int i = 0; i < dim.length; i++) {
            dim[i] = new long[] {i, i * 10L};
        }
        long[][] fact = new long[20_000][];
        for (int i = 0; i < fact.length; i++) {
            fact[i] = new long[] {i % 50 == 0 ? i % 1_000 : 7, 1}; // 98% of probe rows on key 7
        }
        PageFile d = Tables.write(dir, "dim2", List.of("key", "payload"), dim);
        PageFile f = Tables.write(dir, "fact2", List.of("fk", "one"), fact);
        long expected = 0;
        for (long[] row : fact) {
            expected += row[0] * 10L;
        }
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop())) {
            ScanPipeline buildScan = ScanPipeline.over(d);
            HashJoinBuild table = new HashJoinBuild(2, buildScan.col("key"), buildScan.col("payload"), dim.length);
            buildScan.into(table);
            ScanPipeline probe = ScanPipeline.over(f);
            ColumnRef payload = probe.probe(table, probe.col("fk"), "payload");
            HashAggregate agg = HashAggregate.global().sum(payload).count();
            probe.into(agg);

            List<PipelineReport> reports = s.runWaves(List.of(
                    buildScan.pipeline("build", PipelineKind.BUILD, Morsels.partition(0, d.pageCount(), 1, 1), 2),
                    probe.probePipeline("probe", Morsels.partition(0, f.pageCount(), 1, 1), 2, List.of("build"))));

            assertThat(agg.result(s).row(0)).containsExactly(0L, expected, (long) fact.length);
            assertThat(reports.get(1).completedTasks()).isEqualTo(f.pageCount());
            int[] dealt = s.dealing(PipelineKind.PROBE, Morsels.partition(0, f.pageCount(), 1, 1));
            assertThat(dealt).contains(0, 1); // the skewed key does not decide where probe morsels go
        }
    }

    @Test
    void shouldRefuseAProbeThatRunsBeforeItsBuild() {
        PageFile f = Tables.write(dir, "p", List.of("k"), new long[][] {{1}});
        try (MorselScheduler s = new MorselScheduler(1, 1, MorselMetrics.noop())) {
            ScanPipeline buildScan = ScanPipeline.over(f);
            HashJoinBuild table = new HashJoinBuild(1, buildScan.col("k"), buildScan.col("k"), 1);
            buildScan.into(table);
            ScanPipeline probe = ScanPipeline.over(f);
            probe.probe(table, probe.col("k"), "payload");
            probe.into(HashAggregate.global().count());
            var probePipeline = probe.probePipeline("probe", Morsels.partition(0, 1, 1, 1), 1, List.of("build"));
            var buildPipeline = buildScan.pipeline("build", PipelineKind.BUILD, Morsels.partition(0, 1, 1, 1), 1);

            assertThatThrownBy(() -> s.runWaves(List.of(probePipeline, buildPipeline))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("probe pipeline 'probe' reads build 'build', which does not run before it");
            assertThatThrownBy(() -> s.run(probePipeline)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must run with runWaves");
        }
    }
}
