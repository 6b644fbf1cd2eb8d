package dev.baton.morsel.operator;

import java.nio.ByteBuffer;

import dev.baton.morsel.data.ColumnPage;

/**
 * Keeps the rows whose column value lies in {@code [low, high]} (both inclusive; use
 * {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE} for an open end). On a source column it compares
 * the stored narrow values: the bounds are moved into the page's frame of reference (or turned into
 * a range of dictionary codes) once per page, so a row costs one narrow load and two compares.
 */
public record RangeFilter(ColumnRef column, long low, long high) implements Stage {

    public RangeFilter {
        if (low > high) {
            throw new IllegalArgumentException("a range filter needs low <= high, was [" + low + ", " + high + "] on " + column.name());
        }
    }

    public static RangeFilter atMost(ColumnRef c, long high) {
        return new RangeFilter(c, Long.MIN_VALUE, high);
    }

    public static RangeFilter lessThan(ColumnRef c, long bound) {
        return new RangeFilter(c, Long.MIN_VALUE, Math.subtractExact(bound, 1));
    }

    /** {@code from <= v < to}. */
    public static RangeFilter halfOpen(ColumnRef c, long from, long to) {
        return new RangeFilter(c, from, Math.subtractExact(to, 1));
    }

    public static RangeFilter between(ColumnRef c, long low, long high) {
        return new RangeFilter(c, low, high);
    }

    @Override
    public void apply(Batch b) {
        int[] sel = b.selection();
        int n = b.selected();
        if (!column.source()) {
            long[] v = b.computed(column.index());
            int k = 0;
            for (int j = 0; j < n; j++) {
                int i = sel[j];
                long x = v[i];
                sel[k] = i;
                k += x >= low && x <= high ? 1 : 0;
            }
            b.select(k);
            return;
        }
        b.select(filter(b.page(column.index()), sel, n));
    }

    private int filter(ColumnPage page, int[] sel, int n) {
        ByteBuffer d = page.data();
        switch (page.encoding()) {
            case LONG -> {
                int k = 0;
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    long x = d.getLong(i << 3);
                    sel[k] = i;
                    k += x >= low && x <= high ? 1 : 0;
                }
                return k;
            }
            case DICTIONARY -> {
                long[] dict = page.dictionary();
                int from = lowerBound(dict, low);
                int to = high == Long.MAX_VALUE ? dict.length - 1 : lowerBound(dict, high + 1) - 1;
                return from > to ? 0 : unsigned(d, 1, from, to, sel, n);
            }
            default -> {
                long base = page.base();
                if (high < base) {
                    return 0;
                }
                long from = low <= base ? 0 : low - base;
                if (from < 0) { // low - base overflowed: low lies above every value a page can store
                    return 0;
                }
                long to = high - base < 0 ? Long.MAX_VALUE : high - base; // overflow: every stored value is below
                return unsigned(d, page.encoding().bytesPerValue(), from, to, sel, n);
            }
        }
    }

    /** Keeps rows whose unsigned stored value of {@code width} bytes lies in {@code [from, to]}. */
    private static int unsigned(ByteBuffer d, int width, long from, long to, int[] sel, int n) {
        int k = 0;
        switch (width) {
            case 1 -> {
                int lo = (int) Math.min(from, 256);
                int hi = (int) Math.min(to, 255);
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    int x = d.get(i) & 0xFF;
                    sel[k] = i;
                    k += x >= lo && x <= hi ? 1 : 0;
                }
            }
            case 2 -> {
                int lo = (int) Math.min(from, 65536);
                int hi = (int) Math.min(to, 65535);
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    int x = d.getShort(i << 1) & 0xFFFF;
                    sel[k] = i;
                    k += x >= lo && x <= hi ? 1 : 0;
                }
            }
            default -> {
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    long x = d.getInt(i << 2) & 0xFFFF_FFFFL;
                    sel[k] = i;
                    k += x >= from && x <= to ? 1 : 0;
                }
            }
        }
        return k;
    }

    /** The first index whose value is >= {@code v} (the length if none). */
    private static int lowerBound(long[] sorted, long v) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
