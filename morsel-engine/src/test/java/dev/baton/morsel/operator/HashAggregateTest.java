package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hash aggregate alone, and its merge through the local exchange, with and without a hot partition. */
class HashAggregateTest {

    @TempDir
    Path dir;

    /** key -> {count, sum of value}, the plain Java reference. */
    private static Map<Long, long[]> reference(long[][] rows) {
        Map<Long, long[]> m = new TreeMap<>();
        for (long[] r : rows) {
            long[] a = m.computeIfAbsent(r[0], k -> new long[2]);
            a[0]++;
            a[1] += r[1];
        }
        return m;
    }

    private static AggregateResult run(PageFile f, int workers, AggregateExchange exchange) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            HashAggregate agg = HashAggregate.groupBy(scan.col("k"), 16).count().sum(scan.col("v"));
            s.run(scan.into(agg).pipeline("agg", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
            return exchange == null ? agg.result(s) : agg.result(s, exchange);
        }
    }

    private static void assertEqualsReference(AggregateResult r, Map<Long, long[]> expected) {
        assertThat(r.rows()).isEqualTo(expected.size());
        int i = 0;
        for (Map.Entry<Long, long[]> e : expected.entrySet()) {
            assertThat(r.row(i++)).containsExactly(e.getKey(), e.getValue()[0], e.getValue()[1]);
        }
    }

    @Test
    void shouldGroupCountAndSumLikeThePlainReferenceWhateverTheWorkerCount() {
        long[][] rows = new long[5_000][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {(i * 7919L) % 97 - 40, i % 13 * 1_000_000_007L};
        }
        PageFile f = Tables.write(dir, "g", List.of("k", "v"), rows);
        for (int workers : new int[] {1, 2, 3}) {
            assertEqualsReference(run(f, workers, null), reference(rows));
        }
    }

    /**
     * Few groups take the group-by-group path (sums from narrow pages, a computed column, COUNT as a
     * list length); a ninth group appearing in a later page moves the table to the row-by-row path.
     * Both must give the plain reference's answer, filtered, for any worker count.
     */
    @Test
    void shouldSumFewGroupsGroupByGroupLikeThePlainReference() {
        long[][] rows = new long[20_000][];
        for (int i = 0; i < rows.length; i++) {
            long key = i < 15_000 ? (i * 31L) % 5 : i % 11; // 5 groups, then 11 in the last pages
            rows[i] = new long[] {key, 1_000 + i % 200, 300_000 + (i * 7L) % 70_000, i % 3};
        }
        PageFile f = Tables.write(dir, "few", List.of("k", "small", "wide", "f"), rows, 4096);
        Map<Long, long[]> expected = new TreeMap<>();
        for (long[] r : rows) {
            if (r[3] == 0) {
                long[] a = expected.computeIfAbsent(r[0], k -> new long[4]);
                a[0] += r[1];
                a[1]++;
                a[2] += r[2] * (100 - r[1]);
                a[3] += r[2];
            }
        }
        for (int workers : new int[] {1, 2, 3}) {
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                scan.filter(RangeFilter.atMost(scan.col("f"), 0));
                ColumnRef product = scan.project("product", Expr.mul(scan.col("wide"), Expr.sub(Expr.lit(100), scan.col("small"))));
                HashAggregate agg = HashAggregate.groupBy(scan.col("k"), 8).sum(scan.col("small")).count().sum(product).sum(scan.col("wide"));
                s.run(scan.into(agg).pipeline("few", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1, 1), workers));
                AggregateResult r = agg.result(s);
                assertThat(r.rows()).isEqualTo(expected.size());
                int i = 0;
                for (Map.Entry<Long, long[]> e : expected.entrySet()) {
                    long[] a = e.getValue();
                    assertThat(r.row(i++)).containsExactly(e.getKey(), a[0], a[1], a[2], a[3]);
                }
            }
        }
    }

    @Test
    void shouldMergeManyGroupsThroughTheExchangeInParallel() {
        long[][] rows = new long[HashAggregate.SERIAL_MERGE_GROUPS * 2][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {i / 2 * 3L, i};
        }
        PageFile f = Tables.write(dir, "many", List.of("k", "v"), rows, 8192);
        AggregateExchange exchange = AggregateExchange.defaults(2);
        assertEqualsReference(run(f, 2, exchange), reference(rows));
        assertThat(exchange.lastLayout().groupsPerPartition()).hasSize(4).doesNotContain(0);
    }

    @Test
    void shouldMergeManyGroupsAsSortedRunsWhateverTheKeyOrder() {
        // keys scattered (not clustered), each seen by several morsels: partials overlap and are filled out of key order
        long[][] rows = new long[HashAggregate.SERIAL_MERGE_GROUPS * 2][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {(i * 40_503L) % (HashAggregate.SERIAL_MERGE_GROUPS + 9_000) - 1_000, i % 7};
        }
        PageFile f = Tables.write(dir, "scattered", List.of("k", "v"), rows, 8192);
        assertEqualsReference(run(f, 3, null), reference(rows));
    }

    @Test
    void shouldMergePartialsOfSeveralAscendingRunsThatShareKeys() {
        // clustered within a page, pages out of key order and two pages per key block: each worker's partial holds a few
        // ascending runs (merged as they lie in its table), and partials share keys
        int rowsPerPage = 16_384;
        long[][] rows = new long[16 * rowsPerPage][];
        for (int i = 0; i < rows.length; i++) {
            int page = i / rowsPerPage;
            rows[i] = new long[] {(page * 7L % 8) * 8_192 + (i % rowsPerPage) / 2, i % 5};
        }
        PageFile f = Tables.write(dir, "runs", List.of("k", "v"), rows, rowsPerPage * Long.BYTES);
        for (int workers : new int[] {2, 3}) {
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                HashAggregate agg = HashAggregate.groupBy(scan.col("k"), 1_000).count().sum(scan.col("v"));
                s.run(scan.into(agg).pipeline("runs", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1, 1), workers));
                assertEqualsReference(agg.result(s), reference(rows));
            }
        }
    }

    @Test
    void shouldAnswerEveryGroupWhetherTheExpectedCountHoldsThemOrNot() {
        // clustered keys, 2 workers: the answer's arrays are made during the scan for the expected groups; when more groups
        // come, the merge makes arrays of the exact size after counting them
        long[][] rows = new long[HashAggregate.SERIAL_MERGE_GROUPS * 4][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {i / 2 * 5L, i % 3};
        }
        PageFile f = Tables.write(dir, "expected", List.of("k", "v"), rows, 8192);
        int groups = HashAggregate.SERIAL_MERGE_GROUPS * 2;
        for (int expected : new int[] {groups + 1_000, groups, groups - 1, HashAggregate.SERIAL_MERGE_GROUPS}) {
            try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                HashAggregate agg = HashAggregate.groupBy(scan.col("k"), expected).count().sum(scan.col("v"));
                s.run(scan.into(agg).pipeline("expected", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), 2));
                AggregateResult r = agg.result(s);
                assertEqualsReference(r, reference(rows));
                assertThat(r.keys().length).as("answer arrays for %d expected groups", expected).isEqualTo(Math.max(expected, groups));
            }
        }
    }

    @Test
    void shouldSpillAHotPartitionAndStillAnswerEachKeyOnce() {
        // every key hashes to exchange partition 0: without spill one merge task would get them all
        long[] hot = new long[HashAggregate.SERIAL_MERGE_GROUPS + 5_000];
        for (long k = 0, n = 0; n < hot.length; k++) {
            if (HashExchange.partitionOf(k, 4) == 0) {
                hot[(int) n++] = k;
            }
        }
        long[][] rows = new long[hot.length * 2][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {hot[i % hot.length], i % 5};
        }
        PageFile f = Tables.write(dir, "hot", List.of("k", "v"), rows, 8192);
        AggregateExchange exchange = new AggregateExchange(4, hot.length / 4);

        AggregateResult r = run(f, 2, exchange);

        assertEqualsReference(r, reference(rows));
        assertThat(exchange.lastLayout().spilled()).isPositive();
        for (int n : exchange.lastLayout().groupsPerPartition()) {
            assertThat(n).isLessThanOrEqualTo(hot.length * 2 / 4 + 1); // no partition keeps more than its share of partial groups
        }
    }

    @Test
    void shouldAnswerOneGroupWithoutAKey() {
        long[][] rows = new long[1_000][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {i, 2 * i};
        }
        PageFile f = Tables.write(dir, "one", List.of("k", "v"), rows);
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            HashAggregate agg = HashAggregate.global().sum(scan.col("v")).count().sum(Expr.mul(scan.col("k"), Expr.lit(3)));
            s.run(scan.into(agg).pipeline("global", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1, 1), 2));
            assertThat(agg.result(s).row(0)).containsExactly(0L, 999_000L, 1_000L, 1_498_500L);
        }
    }

    @Test
    void shouldRefuseAResultBeforeItRanAndAnAggregateWithoutAccumulators() {
        try (MorselScheduler s = new MorselScheduler(1, 1, MorselMetrics.noop())) {
            assertThatThrownBy(() -> HashAggregate.global().count().result(s)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has not been run");
            PageFile f = Tables.write(dir, "none", List.of("k"), new long[][] {{1}});
            ScanPipeline scan = ScanPipeline.over(f).into(HashAggregate.global());
            assertThatThrownBy(() -> scan.pipeline("x", PipelineKind.SCAN, Morsels.partition(0, 1, 1, 1), 1))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("at least one accumulator");
        }
    }
}
