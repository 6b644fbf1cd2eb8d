package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIN, MAX and ARG_MAX accumulators of the hash aggregate: equal to a plain Java loop whatever the
 * worker count, through the serial merge and through the parallel exchange merge with spill, and
 * grouped or global.
 */
class CombinedAggregatesTest {

    @TempDir
    Path dir;

    /** key -> {min v, max v, max order, v of the max order (larger v on a tie)}. */
    private static Map<Long, long[]> reference(long[][] rows) {
        Map<Long, long[]> m = new TreeMap<>();
        for (long[] r : rows) {
            long[] a = m.computeIfAbsent(r[0], k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 0});
            a[0] = Math.min(a[0], r[1]);
            a[1] = Math.max(a[1], r[1]);
            if (r[2] > a[2] || r[2] == a[2] && r[1] > a[3]) {
                a[2] = r[2];
                a[3] = r[1];
            }
        }
        return m;
    }

    private static AggregateResult run(PageFile f, int workers, boolean global, AggregateExchange exchange) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            HashAggregate agg = global ? HashAggregate.global() : HashAggregate.groupBy(scan.col("k"), 16);
            agg.min(scan.col("v")).max(scan.col("v")).maxBy(scan.col("o"), scan.col("v"));
            s.run(scan.into(agg).pipeline("agg", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
            return exchange == null ? agg.result(s) : agg.result(s, exchange);
        }
    }

    private static void assertEqualsReference(AggregateResult r, Map<Long, long[]> expected) {
        assertThat(r.rows()).isEqualTo(expected.size());
        int i = 0;
        for (Map.Entry<Long, long[]> e : expected.entrySet()) {
            long[] v = e.getValue();
            assertThat(r.row(i++)).as("group " + e.getKey()).containsExactly(e.getKey(), v[0], v[1], v[2], v[3]);
        }
    }

    private static long[][] rows(int n, int groups) {
        long[][] rows = new long[n][];
        for (int i = 0; i < n; i++) {
            // orders repeat (i % 50) so ties between rows of a group happen, and values are signed
            rows[i] = new long[] {(i * 7919L) % groups, (i * 31L) % 1_001 - 500, (i * 13L) % 50};
        }
        return rows;
    }

    @Test
    void shouldFoldMinMaxAndArgMaxLikeThePlainLoopWhateverTheWorkerCount() {
        long[][] rows = rows(6_000, 97);
        PageFile f = Tables.write(dir, "g", List.of("k", "v", "o"), rows);
        for (int workers : new int[] {1, 2, 3}) {
            assertEqualsReference(run(f, workers, false, null), reference(rows));
        }
    }

    @Test
    void shouldCombineThroughTheParallelExchangeEvenWhenAKeySpillsIntoTwoPartitions() {
        long[][] rows = rows(HashAggregate.SERIAL_MERGE_GROUPS * 3, HashAggregate.SERIAL_MERGE_GROUPS + 7);
        PageFile f = Tables.write(dir, "many", List.of("k", "v", "o"), rows, 8192);
        AggregateExchange exchange = new AggregateExchange(4, 1_000); // far below the fair share: most groups spill
        assertEqualsReference(run(f, 2, false, exchange), reference(rows));
        assertThat(exchange.lastLayout().spilled()).isPositive();
    }

    @Test
    void shouldFoldEveryRowIntoOneGroupWithoutAKey() {
        long[][] rows = rows(3_000, 5);
        PageFile f = Tables.write(dir, "global", List.of("k", "v", "o"), rows);
        long[][] asOneGroup = new long[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            asOneGroup[i] = new long[] {0, rows[i][1], rows[i][2]};
        }
        assertEqualsReference(run(f, 2, true, null), reference(asOneGroup));
    }
}
