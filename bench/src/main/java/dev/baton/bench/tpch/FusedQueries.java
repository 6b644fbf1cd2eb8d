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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.operator.LongAggTable;

/**
 * The same queries as one hand-written single-threaded loop each, with no scheduler and no operator
 * boundaries: the practical ceiling the engine is measured against.
 */
public final class FusedQueries {

    private FusedQueries() {
    }

    public static List<List<Object>> q1(PageSource li) {
        long[][] acc = new long[1 << 16][];
        for (int p = 0; p < li.pageCount(); p++) {
            LongBuffer q = li.page(p, QUANTITY);
            LongBuffer pr = li.page(p, EXTENDEDPRICE);
            LongBuffer d = li.page(p, DISCOUNT);
            LongBuffer tx = li.page(p, TAX);
            LongBuffer rf = li.page(p, RETURNFLAG);
            LongBuffer ls = li.page(p, LINESTATUS);
            LongBuffer sd = li.page(p, SHIPDATE);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                if (sd.get(i) <= TpchQueries.Q1_CUTOFF) {
                    int key = (int) (rf.get(i) << 8 | ls.get(i));
                    long[] a = acc[key];
                    if (a == null) {
                        a = acc[key] = new long[6];
                    }
                    long price = pr.get(i);
                    long disc = d.get(i);
                    long discPrice = price * (100 - disc);
                    a[0] += q.get(i);
                    a[1] += price;
                    a[2] += discPrice;
                    a[3] += discPrice * (100 + tx.get(i));
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
        long sum = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            LongBuffer sd = li.page(p, SHIPDATE);
            LongBuffer d = li.page(p, DISCOUNT);
            LongBuffer q = li.page(p, QUANTITY);
            LongBuffer pr = li.page(p, EXTENDEDPRICE);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long date = sd.get(i);
                long disc = d.get(i);
                if (date >= TpchQueries.Q6_FROM && date < TpchQueries.Q6_TO && disc >= 5 && disc <= 7 && q.get(i) < 2400) {
                    sum += pr.get(i) * disc;
                }
            }
        }
        return List.of(List.of(BigDecimal.valueOf(sum, 4)));
    }

    /** Q14 with the part side as a dense array indexed by part key — the ceiling for a key-dense join. */
    public static List<List<Object>> q14(PageSource li, PageSource part) {
        byte[] promo = new byte[(int) part.rowCount() + 2];
        Arrays.fill(promo, (byte) -1);
        for (int p = 0; p < part.pageCount(); p++) {
            LongBuffer key = part.page(p, 0);
            LongBuffer flag = part.page(p, 1);
            for (int i = 0; i < part.rowsIn(p); i++) {
                promo[(int) key.get(i)] = (byte) flag.get(i);
            }
        }
        long promoSum = 0;
        long allSum = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            LongBuffer sd = li.page(p, SHIPDATE);
            LongBuffer pk = li.page(p, PARTKEY);
            LongBuffer pr = li.page(p, EXTENDEDPRICE);
            LongBuffer d = li.page(p, DISCOUNT);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long date = sd.get(i);
                if (date >= TpchQueries.Q14_FROM && date < TpchQueries.Q14_TO) {
                    int k = (int) pk.get(i);
                    if (k < promo.length && promo[k] >= 0) {
                        long rev = pr.get(i) * (100 - d.get(i));
                        allSum += rev;
                        promoSum += promo[k] == 1 ? rev : 0;
                    }
                }
            }
        }
        return List.of(List.of(100.0 * promoSum / allSum));
    }

    public static List<List<Object>> groupByOrderKey(PageSource li) {
        LongAggTable t = new LongAggTable(2, (int) Math.min(1 << 22, li.rowCount() / 4 + 16));
        long lastKey = Long.MIN_VALUE;
        int b = 0;
        for (int p = 0; p < li.pageCount(); p++) {
            LongBuffer ok = li.page(p, ORDERKEY);
            LongBuffer q = li.page(p, QUANTITY);
            int n = li.rowsIn(p);
            for (int i = 0; i < n; i++) {
                long key = ok.get(i);
                if (key != lastKey) {
                    b = t.slotBase(key);
                    lastKey = key;
                }
                long[] v = t.values();
                v[b]++;
                v[b + 1] += q.get(i);
            }
        }
        List<List<Object>> out = new ArrayList<>();
        for (long[] r : t.sortedRows()) {
            out.add(List.of(r[0], r[1], BigDecimal.valueOf(r[2], 2)));
        }
        return out;
    }
}
