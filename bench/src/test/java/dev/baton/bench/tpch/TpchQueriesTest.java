package dev.baton.bench.tpch;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.scheduler.MorselScheduler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TPC-H at SF 0.01 on the engine, checked row by row against DuckDB on the same rows. */
class TpchQueriesTest {

    private static final double SF = 0.01;
    private static final int PAGE_BYTES = 4096;

    @TempDir
    static Path dir;
    static PageFile lineitem;
    static PageFile part;
    static DuckDbPeer duckdb;

    @BeforeAll
    static void load() {
        lineitem = PageFile.open(TpchData.lineitem(dir, SF, PAGE_BYTES));
        part = PageFile.open(TpchData.part(dir, SF, PAGE_BYTES));
        duckdb = new DuckDbPeer(lineitem, SF, dir);
    }

    @AfterAll
    static void close() {
        duckdb.close();
    }

    private static List<List<Object>> engine(int workers, Function<TpchQueries, List<List<Object>>> query) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            return query.apply(new TpchQueries(s, 8));
        }
    }

    @Test
    void shouldAnswerQ1ExactlyAsDuckDb() {
        List<List<Object>> expected = duckdb.query(TpchQueries.Q1_SQL);
        assertThat(expected).hasSize(4);
        assertThat(Results.difference(expected, engine(2, q -> q.q1(lineitem)))).isEmpty();
    }

    @Test
    void shouldAnswerQ6Q14AndGroupByOrderKeyAsDuckDb() {
        assertThat(Results.difference(duckdb.query(TpchQueries.Q6_SQL), engine(2, q -> q.q6(lineitem)))).isEmpty();
        assertThat(Results.difference(duckdb.query(TpchQueries.Q14_SQL), engine(2, q -> q.q14(lineitem, part)))).isEmpty();
        assertThat(Results.difference(duckdb.query(TpchQueries.GROUP_BY_ORDERKEY_SQL), engine(2, q -> q.groupByOrderKey(lineitem)))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void shouldGiveIdenticalResultsWhateverTheWorkerCount(int workers) {
        assertThat(engine(workers, q -> q.q1(lineitem))).isEqualTo(engine(1, q -> q.q1(lineitem)));
        assertThat(engine(workers, q -> q.groupByOrderKey(lineitem))).isEqualTo(engine(1, q -> q.groupByOrderKey(lineitem)));
        assertThat(engine(workers, q -> q.q14(lineitem, part))).isEqualTo(engine(1, q -> q.q14(lineitem, part)));
    }

    @Test
    void shouldGiveTheSameAnswersOnTheForkJoinScheduler() {
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop(), MorselScheduler.Mode.FORK_JOIN)) {
            TpchQueries q = new TpchQueries(s, 8);
            assertThat(q.q1(lineitem)).isEqualTo(engine(1, x -> x.q1(lineitem)));
            assertThat(q.groupByOrderKey(lineitem)).isEqualTo(engine(1, x -> x.groupByOrderKey(lineitem)));
        }
    }

    @Test
    void shouldMatchTheHandFusedLoops() {
        assertThat(Results.difference(FusedQueries.q1(lineitem), engine(2, q -> q.q1(lineitem)))).isEmpty();
        assertThat(Results.difference(FusedQueries.q6(lineitem), engine(2, q -> q.q6(lineitem)))).isEmpty();
        assertThat(Results.difference(FusedQueries.q14(lineitem, part), engine(2, q -> q.q14(lineitem, part)))).isEmpty();
        assertThat(Results.difference(FusedQueries.groupByOrderKey(lineitem), engine(2, q -> q.groupByOrderKey(lineitem)))).isEmpty();
    }

    @Test
    void shouldDetectADifferenceInTheComparison() {
        List<List<Object>> expected = duckdb.query(TpchQueries.Q6_SQL);
        List<List<Object>> wrong = List.of(List.of(new BigDecimal("1.0001")));
        assertThat(Results.difference(expected, wrong)).isPresent();
    }
}
