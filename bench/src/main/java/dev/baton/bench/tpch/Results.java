package dev.baton.bench.tpch;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * Row-by-row comparison of query results: decimals and integers exactly, strings exactly, doubles
 * (averages, ratios) to 1e-9 relative, since the two engines may divide in a different order.
 */
public final class Results {

    private Results() {
    }

    /** The first difference, or empty when the results are equal. */
    public static Optional<String> difference(List<List<Object>> expected, List<List<Object>> actual) {
        if (expected.size() != actual.size()) {
            return Optional.of("row count " + actual.size() + ", expected " + expected.size());
        }
        for (int r = 0; r < expected.size(); r++) {
            List<Object> e = expected.get(r);
            List<Object> a = actual.get(r);
            if (e.size() != a.size()) {
                return Optional.of("row " + r + " has " + a.size() + " columns, expected " + e.size());
            }
            for (int c = 0; c < e.size(); c++) {
                if (!same(e.get(c), a.get(c))) {
                    return Optional.of("row " + r + " column " + c + ": " + a.get(c) + ", expected " + e.get(c));
                }
            }
        }
        return Optional.empty();
    }

    private static boolean same(Object e, Object a) {
        if (e instanceof BigDecimal x && a instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        if (e instanceof Number x && a instanceof Number y && (e instanceof Double || a instanceof Double)) {
            double dx = x.doubleValue();
            double dy = y.doubleValue();
            return Math.abs(dx - dy) <= 1e-9 * Math.max(1.0, Math.max(Math.abs(dx), Math.abs(dy)));
        }
        if (e instanceof Number x && a instanceof Number y) {
            return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
        }
        return String.valueOf(e).equals(String.valueOf(a));
    }
}
