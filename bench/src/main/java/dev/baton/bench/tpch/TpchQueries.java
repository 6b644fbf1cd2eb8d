package dev.baton.bench.tpch;

import static dev.baton.bench.tpch.TpchData.DISCOUNT;
import static dev.baton.bench.tpch.TpchData.EXTENDEDPRICE;
import static dev.baton.bench.tpch.TpchData.LINESTATUS;
import static dev.baton.bench.tpch.TpchData.ORDERKEY;
import static dev.baton.bench.tpch.TpchData.PARTKEY;
import static dev.baton.bench.tpch.TpchData.QUANTITY;
import static dev.baton.bench.tpch.TpchData.RETURNFLAG;
import static dev.baton.bench.tpch.TpchData.SHIPDATE;
import static dev.baton.bench.tpch.TpchData.TAX;

import java.math.BigDecimal;
import java.nio.LongBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.LongAggTable;
import dev.baton.morsel.operator.LongLongJoinTable;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;

/**
 * TPC-H Q1, Q6, Q14 and {@code GROUP BY l_orderkey} on the morsel engine. Each scan pipeline gives
 * every worker its own partial aggregate; partials merge at the barrier and rows come out sorted by
 * key, so the answer is the same for any worker count. Results use the column types DuckDB returns
 * (String, BigDecimal, Long, Double) so the two can be compared row by row.
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
        this.scheduler = scheduler;
        this.pagesPerMorsel = pagesPerMorsel;
    }

    /** Morsels sized to half of L2 for this source's page size. */
    public static TpchQueries autoTuned(MorselScheduler scheduler, int pageBytes) {
        return new TpchQueries(scheduler, Morsels.autoTunedPagesPerMorsel(Morsels.l2Bytes(), pageBytes));
    }

    private List<Morsel> morsels(PageSource src) {
        return Morsels.partition(0, src.pageCount(), pagesPerMorsel, 1);
    }

    private LongAggTable[] partials(int slots, int expected) {
        LongAggTable[] tables = new LongAggTable[scheduler.workers()];
        for (int i = 0; i < tables.length; i++) {
            tables[i] = new LongAggTable(slots, expected);
        }
        return tables;
    }

    private static LongAggTable merge(LongAggTable[] partials) {
        for (int i = 1; i < partials.length; i++) {
            partials[0].mergeFrom(partials[i]);
        }
        return partials[0];
    }

    public List<List<Object>> q1(PageSource li) {
        LongAggTable[] partials = partials(6, 8);
        scheduler.run(new Pipeline("q1-scan", morsels(li), li.rowCount(), (w, m, ctx) -> {
            LongAggTable t = partials[w];
            long[] v = t.values();
            for (int p = m.startPage(); p < m.endPage() && !ctx.isCancelled(); p++) {
                LongBuffer q = li.page(p, QUANTITY);
                LongBuffer pr = li.page(p, EXTENDEDPRICE);
                LongBuffer d = li.page(p, DISCOUNT);
                LongBuffer tx = li.page(p, TAX);
                LongBuffer rf = li.page(p, RETURNFLAG);
                LongBuffer ls = li.page(p, LINESTATUS);
                LongBuffer sd = li.page(p, SHIPDATE);
                int n = li.rowsIn(p);
                for (int i = 0; i < n; i++) {
                    if (sd.get(i) <= Q1_CUTOFF) {
                        int b = t.slotBase(rf.get(i) << 8 | ls.get(i));
                        v = t.values();
                        long price = pr.get(i);
                        long disc = d.get(i);
                        long discPrice = price * (100 - disc);
                        v[b] += q.get(i);
                        v[b + 1] += price;
                        v[b + 2] += discPrice;
                        v[b + 3] += discPrice * (100 + tx.get(i));
                        v[b + 4] += disc;
                        v[b + 5]++;
                    }
                }
            }
        }));
        return q1Rows(merge(partials).sortedRows());
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
        long[] partial = new long[scheduler.workers()];
        scheduler.run(new Pipeline("q6-scan", morsels(li), li.rowCount(), (w, m, ctx) -> {
            long sum = 0;
            for (int p = m.startPage(); p < m.endPage() && !ctx.isCancelled(); p++) {
                LongBuffer sd = li.page(p, SHIPDATE);
                LongBuffer d = li.page(p, DISCOUNT);
                LongBuffer q = li.page(p, QUANTITY);
                LongBuffer pr = li.page(p, EXTENDEDPRICE);
                int n = li.rowsIn(p);
                for (int i = 0; i < n; i++) {
                    long date = sd.get(i);
                    long disc = d.get(i);
                    if (date >= Q6_FROM && date < Q6_TO && disc >= 5 && disc <= 7 && q.get(i) < 2400) {
                        sum += pr.get(i) * disc;
                    }
                }
            }
            partial[w] += sum;
        }));
        long total = 0;
        for (long s : partial) {
            total += s;
        }
        return List.of(List.of(BigDecimal.valueOf(total, 4)));
    }

    public List<List<Object>> q14(PageSource li, PageSource part) {
        LongLongJoinTable[] builds = new LongLongJoinTable[scheduler.workers()];
        for (int i = 0; i < builds.length; i++) {
            builds[i] = new LongLongJoinTable((int) (part.rowCount() / builds.length) + 16);
        }
        scheduler.run(new Pipeline("q14-build", morsels(part), part.rowCount(), (w, m, ctx) -> {
            for (int p = m.startPage(); p < m.endPage(); p++) {
                LongBuffer key = part.page(p, 0);
                LongBuffer promo = part.page(p, 1);
                int n = part.rowsIn(p);
                for (int i = 0; i < n; i++) {
                    builds[w].put(key.get(i), promo.get(i));
                }
            }
        }));
        for (int i = 1; i < builds.length; i++) {
            builds[0].mergeFrom(builds[i]);
        }
        LongLongJoinTable parts = builds[0];
        long[][] sums = new long[scheduler.workers()][2];
        scheduler.run(new Pipeline("q14-probe", morsels(li), li.rowCount(), (w, m, ctx) -> {
            long promoSum = 0;
            long allSum = 0;
            for (int p = m.startPage(); p < m.endPage() && !ctx.isCancelled(); p++) {
                LongBuffer sd = li.page(p, SHIPDATE);
                LongBuffer pk = li.page(p, PARTKEY);
                LongBuffer pr = li.page(p, EXTENDEDPRICE);
                LongBuffer d = li.page(p, DISCOUNT);
                int n = li.rowsIn(p);
                for (int i = 0; i < n; i++) {
                    long date = sd.get(i);
                    if (date >= Q14_FROM && date < Q14_TO) {
                        long promo = parts.get(pk.get(i), -1);
                        if (promo >= 0) {
                            long rev = pr.get(i) * (100 - d.get(i));
                            allSum += rev;
                            promoSum += promo == 1 ? rev : 0;
                        }
                    }
                }
            }
            sums[w][0] += promoSum;
            sums[w][1] += allSum;
        }));
        long promo = 0;
        long all = 0;
        for (long[] s : sums) {
            promo += s[0];
            all += s[1];
        }
        return List.of(List.of(100.0 * promo / all));
    }

    public List<List<Object>> groupByOrderKey(PageSource li) {
        LongAggTable[] partials = partials(2, (int) Math.min(1 << 22, li.rowCount() / 4 / scheduler.workers() + 16));
        scheduler.run(new Pipeline("orderkey-scan", morsels(li), li.rowCount(), (w, m, ctx) -> {
            LongAggTable t = partials[w];
            long lastKey = Long.MIN_VALUE;
            int b = 0;
            for (int p = m.startPage(); p < m.endPage() && !ctx.isCancelled(); p++) {
                LongBuffer ok = li.page(p, ORDERKEY);
                LongBuffer q = li.page(p, QUANTITY);
                int n = li.rowsIn(p);
                for (int i = 0; i < n; i++) {
                    long key = ok.get(i);
                    if (key != lastKey) { // runs of one key (lineitem is clustered by order) probe once
                        b = t.slotBase(key);
                        lastKey = key;
                    }
                    long[] v = t.values();
                    v[b]++;
                    v[b + 1] += q.get(i);
                }
            }
        }));
        List<List<Object>> out = new ArrayList<>();
        for (long[] r : merge(partials).sortedRows()) {
            out.add(List.of(r[0], r[1], BigDecimal.valueOf(r[2], 2)));
        }
        return out;
    }
}
