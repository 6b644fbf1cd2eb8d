package dev.baton.bench.tpch;

import static dev.baton.morsel.operator.Expr.add;
import static dev.baton.morsel.operator.Expr.lit;
import static dev.baton.morsel.operator.Expr.mul;
import static dev.baton.morsel.operator.Expr.sub;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.ColumnRef;
import dev.baton.morsel.operator.DenseJoinBuild;
import dev.baton.morsel.operator.HashAggregate;
import dev.baton.morsel.operator.JoinBuild;
import dev.baton.morsel.operator.PartitionedHashJoinBuild;
import dev.baton.morsel.operator.RangeFilter;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * TPC-H Q1, Q6, Q14 and {@code GROUP BY l_orderkey} on the morsel engine, each assembled from its
 * operators: a scan of the page file, range filters on the narrow columns, projections, hash-join
 * build and probe pipelines, and a hash aggregate whose per-worker partials merge through the local
 * exchange with rows sorted by key, so the answer is the same for any worker count. Results use the
 * column types DuckDB returns (String, BigDecimal, Long, Double) so the two can be compared row by
 * row. {@link FusedQueries} holds the same queries as hand-fused loops, the bench's peer.
 */
public final class TpchQueries {

    static final long Q1_CUTOFF = LocalDate.of(1998, 9, 2).toEpochDay();
    static final long Q6_FROM = LocalDate.of(1994, 1, 1).toEpochDay();
    static final long Q6_TO = LocalDate.of(1995, 1, 1).toEpochDay();
    static final long Q14_FROM = LocalDate.of(1995, 9, 1).toEpochDay();
    static final long Q14_TO = LocalDate.of(1995, 10, 1).toEpochDay();

    public static final String Q1_SQL = "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),"
            + " sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),"
            + " avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem"
            + " WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus";
    public static final String Q6_SQL = "SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01'"
            + " AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24";
    public static final String Q14_SQL = "SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)"
            + " / sum(l_extendedprice * (1 - l_discount)) FROM lineitem, part WHERE l_partkey = p_partkey"
            + " AND l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1995-10-01'";
    public static final String GROUP_BY_ORDERKEY_SQL = "SELECT l_orderkey, count(*), sum(l_quantity) FROM lineitem GROUP BY l_orderkey ORDER BY l_orderkey";

    private final MorselScheduler scheduler;
    private final int pagesPerMorsel;

    public TpchQueries(MorselScheduler scheduler, int pagesPerMorsel) {
        if (pagesPerMorsel < 1) {
            throw new IllegalArgumentException("pagesPerMorsel must be >= 1, was " + pagesPerMorsel);
        }
        this.scheduler = scheduler;
        this.pagesPerMorsel = pagesPerMorsel;
    }

    /** Morsels sized to half of L2 for pages of {@code pageBytes} stored bytes. */
    public static TpchQueries autoTuned(MorselScheduler scheduler, int pageBytes) {
        return new TpchQueries(scheduler, Morsels.autoTunedPagesPerMorsel(Morsels.l2Bytes(), pageBytes));
    }

    /**
     * Morsels of {@code pagesPerMorsel} pages, smaller where that gives a worker fewer than
     * {@link Morsels#MIN_MORSELS_PER_WORKER}: {@code part} is 25 pages at SF 1 (one L2-sized morsel, which left Q14's whole
     * build to one worker) and lineitem 733 (11 morsels, split no better than 6 to 5 between two workers).
     */
    public List<Morsel> morsels(PageSource src) {
        return Morsels.forWorkers(src.pageCount(), pagesPerMorsel, workers(), 1);
    }

    private int workers() {
        return scheduler.workers();
    }

    public List<List<Object>> q1(PageSource li) {
        ScanPipeline scan = ScanPipeline.over(li);
        ColumnRef price = scan.col("l_extendedprice");
        ColumnRef disc = scan.col("l_discount");
        scan.filter(RangeFilter.atMost(scan.col("l_shipdate"), Q1_CUTOFF));
        ColumnRef discPrice = scan.project("disc_price", mul(price, sub(lit(100), disc)));
        ColumnRef charge = scan.project("charge", mul(discPrice, add(lit(100), scan.col("l_tax"))));
        HashAggregate agg = HashAggregate.groupBy(add(mul(scan.col("l_returnflag"), lit(256)), scan.col("l_linestatus")), 8)
                .sum(scan.col("l_quantity")).sum(price).sum(discPrice).sum(charge).sum(disc).count();
        scheduler.run(scan.into(agg).pipeline("q1-scan", PipelineKind.SCAN, morsels(li), workers()));
        AggregateResult r = agg.result(scheduler);
        long[][] rows = new long[r.rows()][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = r.row(i);
        }
        return q1Rows(rows);
    }

    static List<List<Object>> q1Rows(long[][] rows) {
        List<List<Object>> out = new ArrayList<>();
        for (long[] r : rows) {
            long count = r[6];
            out.add(List.of(String.valueOf((char) (r[0] >> 8)), String.valueOf((char) (r[0] & 0xff)),
                    BigDecimal.valueOf(r[1], 2), BigDecimal.valueOf(r[2], 2), BigDecimal.valueOf(r[3], 4), BigDecimal.valueOf(r[4], 6),
                    r[1] / 100.0 / count, r[2] / 100.0 / count, r[5] / 100.0 / count, count));
        }
        return out;
    }

    public List<List<Object>> q6(PageSource li) {
        ScanPipeline scan = ScanPipeline.over(li);
        ColumnRef disc = scan.col("l_discount");
        scan.filter(RangeFilter.halfOpen(scan.col("l_shipdate"), Q6_FROM, Q6_TO))
                .filter(RangeFilter.between(disc, 5, 7))
                .filter(RangeFilter.lessThan(scan.col("l_quantity"), 2400));
        HashAggregate agg = HashAggregate.global().sum(mul(scan.col("l_extendedprice"), disc));
        scheduler.run(scan.into(agg).pipeline("q6-scan", PipelineKind.SCAN, morsels(li), workers()));
        AggregateResult r = agg.result(scheduler);
        return List.of(List.of(BigDecimal.valueOf(r.rows() == 0 ? 0 : r.value(0, 0), 4)));
    }

    /**
     * A build pipeline over {@code part}, then a probe pipeline over lineitem that the scheduler runs after it. Where
     * part's page bounds give a dense range for {@code p_partkey} (they do for TPC-H's keys 1 .. rows), the workers write
     * the build's rows straight into one table indexed by key; otherwise the build is partitioned by key (two partitions
     * per worker) and a merge wave makes each partition's table in parallel before the probe.
     */
    public List<List<Object>> q14(PageSource li, PageSource part) {
        ScanPipeline partScan = ScanPipeline.over(part);
        ColumnRef partPromo = partScan.col("p_promo");
        DenseJoinBuild dense = DenseJoinBuild.over(partScan, "p_partkey", partPromo);
        PartitionedHashJoinBuild partitioned = dense != null ? null
                : new PartitionedHashJoinBuild(workers(), 2 * workers(), partScan.col("p_partkey"), partPromo, (int) part.rowCount());
        JoinBuild build = dense != null ? dense : partitioned;
        partScan.into(build);

        ScanPipeline scan = ScanPipeline.over(li);
        scan.filter(RangeFilter.halfOpen(scan.col("l_shipdate"), Q14_FROM, Q14_TO));
        ColumnRef promo = scan.probe(build, scan.col("l_partkey"), "p_promo");
        ColumnRef revenue = scan.project("revenue", mul(scan.col("l_extendedprice"), sub(lit(100), scan.col("l_discount"))));
        ColumnRef promoRevenue = scan.project("promo_revenue", mul(revenue, promo));
        HashAggregate agg = HashAggregate.global().sum(promoRevenue).sum(revenue);
        scan.into(agg);
        List<Pipeline> waves = new ArrayList<>();
        waves.add(partScan.pipeline("q14-build", PipelineKind.BUILD, morsels(part), workers()));
        if (partitioned != null) {
            waves.add(partitioned.mergePipeline("q14-build-merge"));
        }
        waves.add(scan.probePipeline("q14-probe", morsels(li), workers(), List.of("q14-build")));
        scheduler.runWaves(waves);
        AggregateResult r = agg.result(scheduler);
        return List.of(List.of(r.rows() == 0 ? Double.NaN : 100.0 * r.value(0, 0) / r.value(0, 1)));
    }

    public List<List<Object>> groupByOrderKey(PageSource li) {
        return groupByOrderKeyAnswer(li).rows();
    }

    /** {@code GROUP BY l_orderkey} up to its sorted columnar aggregate; the rows are boxed when asked for. */
    public Answer groupByOrderKeyAnswer(PageSource li) {
        ScanPipeline scan = ScanPipeline.over(li);
        HashAggregate agg = HashAggregate.groupBy(scan.col("l_orderkey"), (int) Math.min(1 << 22, li.rowCount() / 4 + 16))
                .count().sum(scan.col("l_quantity"));
        scheduler.run(scan.into(agg).pipeline("orderkey-scan", PipelineKind.SCAN, morsels(li), workers()));
        AggregateResult r = agg.result(scheduler);
        return () -> rows(r.rows(), i -> List.of(r.key(i), r.value(i, 0), BigDecimal.valueOf(r.value(i, 1), 2)));
    }

    /**
     * Rows {@code 0 .. count) built by {@code row}, in parallel on the scheduler's workers: boxing the
     * 1.5 million groups of {@code GROUP BY l_orderkey} into Java rows cost more than the scan and the
     * merge together, and a serial loop here would cap the speed-up of every worker count.
     */
    private List<List<Object>> rows(int count, IntFunction<List<Object>> row) {
        @SuppressWarnings("unchecked")
        List<Object>[] out = new List[count];
        int chunk = 16_384;
        List<Morsel> chunks = new ArrayList<>();
        for (int c = 0; c * chunk < count; c++) {
            chunks.add(new Morsel(c, c, c + 1, 0));
        }
        scheduler.run(Pipeline.of("answer-rows", PipelineKind.SCAN, chunks, 0, (w, m, ctx) -> {
            for (int i = m.id() * chunk, end = Math.min(count, i + chunk); i < end; i++) {
                out[i] = row.apply(i);
            }
        }));
        return Arrays.asList(out);
    }
}
