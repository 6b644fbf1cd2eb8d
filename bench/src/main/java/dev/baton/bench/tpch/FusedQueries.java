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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.data.ColumnPage;
import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.LongAggTable;

/**
 * The same queries as one hand-written single-threaded loop each, with no scheduler and no operator
 * boundaries: the practical ceiling the engine is measured against. Each page's columns are first
 * widened into reused {@code long[]} vectors ({@link ColumnPage#copyTo}, one tight loop per column),
 * then one fused loop does the query — the plain way to hand-write a loop over narrow pages.
 */
public final class FusedQueries {

    private FusedQueries() {
    }

    /** Reusable decoded columns of one page. */
    private static final class Columns {
        private final long[][] v;

        Columns(int count) {
            v = new long[count][0];
        }

        long[] load(PageSource src, int page, int slot, int column) {
            int n = src.rowsIn(page);
            if (v[slot].length < n) {
                v[slot] = new long[n];
            }
            src.column(page, column).copyTo(v[slot]);
            return v[slot];
        }
    }

    public static List<List<Object>> q1(PageSource li) {
        Columns cols = new Columns(8);
        long[][] acc = new long[1 << 16][];
        for (int p = 0; p < li.pageCount(); p++) {
            long[] q = cols.load(li, p, 0, QUANTITY);
            long[] pr = cols.load(li, p, 1, EXTENDEDPRICE);
            long[] d = cols.load(li, p, 2, DISCOUNT);
            long[] tx = cols.load(li, p, 3, TAX);
            long[] rf = cols.load(li, p, 4, RETURNFLAG);
            long[] ls = cols.load(li, p, 5, LINESTATUS);
            long[] sd = cols.load(li, p, 6, SHIPDATE);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                if (sd[i] <= TpchQueries.Q1_CUTOFF) {
                    int key = (int) (rf[i] << 8 | ls[i]);
                    long[] a = acc[key];
                    if (a == null) {
                        a = acc[key] = new long[6];
                    }
                    long price = pr[i];
                    long disc = d[i];
                    long discPrice = price * (100 - disc);
                    a[0] += q[i];
                    a[1] += price;
                    a[2] += discPrice;
                    a[3] += discPrice * (100 + tx[i]);
                    a[4] += disc;
                    a[5]++;
                }
            }
        }
        List<long[]> rows = new ArrayList<>();
        for (int k = 0; k < acc.length; k++) {
            if (acc[k] != null) {
                long[] row = new long[7];
                row[0] = k;
                System.arraycopy(acc[k], 0, row, 1, 6);
                rows.add(row);
            }
        }
        return TpchQueries.q1Rows(rows.toArray(long[][]::new));
    }

    public static List<List<Object>> q6(PageSource li) {
        Columns cols = new Columns(8);
        long sum = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            long[] sd = cols.load(li, p, 0, SHIPDATE);
            long[] d = cols.load(li, p, 1, DISCOUNT);
            long[] q = cols.load(li, p, 2, QUANTITY);
            long[] pr = cols.load(li, p, 3, EXTENDEDPRICE);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long date = sd[i];
                long disc = d[i];
                if (date >= TpchQueries.Q6_FROM && date < TpchQueries.Q6_TO && disc >= 5 && disc <= 7 && q[i] < 2400) {
                    sum += pr[i] * disc;
                }
            }
        }
        return List.of(List.of(BigDecimal.valueOf(sum, 4)));
    }

    /** Q14 with the part side as a dense array indexed by part key — the ceiling for a key-dense join. */
    public static List<List<Object>> q14(PageSource li, PageSource part) {
        Columns cols = new Columns(8);
        byte[] promo = new byte[(int) part.rowCount() + 2];
        Arrays.fill(promo, (byte) -1);
        for (int p = 0; p < part.pageCount(); p++) {
            long[] key = cols.load(part, p, 0, 0);
            long[] flag = cols.load(part, p, 1, 1);
            for (int i = 0; i < part.rowsIn(p); i++) {
                promo[(int) key[i]] = (byte) flag[i];
            }
        }
        long promoSum = 0;
        long allSum = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            long[] sd = cols.load(li, p, 2, SHIPDATE);
            long[] pk = cols.load(li, p, 3, PARTKEY);
            long[] pr = cols.load(li, p, 4, EXTENDEDPRICE);
            long[] d = cols.load(li, p, 5, DISCOUNT);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long date = sd[i];
                if (date >= TpchQueries.Q14_FROM && date < TpchQueries.Q14_TO) {
                    int k = (int) pk[i];
                    if (k < promo.length && promo[k] >= 0) {
                        long rev = pr[i] * (100 - d[i]);
                        allSum += rev;
                        promoSum += promo[k] == 1 ? rev : 0;
                    }
                }
            }
        }
        return List.of(List.of(100.0 * promoSum / allSum));
    }

    public static List<List<Object>> groupByOrderKey(PageSource li) {
        return groupByOrderKeyAnswer(li).rows();
    }

    /** Up to the sorted columnar aggregate, as the engine's; the rows are boxed when asked for. */
    public static Answer groupByOrderKeyAnswer(PageSource li) {
        Columns cols = new Columns(8);
        LongAggTable t = new LongAggTable(2, (int) Math.min(1 << 22, li.rowCount() / 4 + 16));
        long lastKey = Long.MIN_VALUE;
        int b = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            long[] ok = cols.load(li, p, 0, ORDERKEY);
            long[] q = cols.load(li, p, 1, QUANTITY);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long key = ok[i];
                if (key != lastKey) {
                    b = t.slotBase(key);
                    lastKey = key;
                }
                long[] v = t.values();
                v[b]++;
                v[b + 1] += q[i];
            }
        }
        AggregateResult sorted = t.sorted();
        return () -> {
            List<List<Object>> out = new ArrayList<>(sorted.rows());
            for (int r = 0; r < sorted.rows(); r++) {
                out.add(List.of(sorted.key(r), sorted.value(r, 0), BigDecimal.valueOf(sorted.value(r, 1), 2)));
            }
            return out;
        };
    }
}
