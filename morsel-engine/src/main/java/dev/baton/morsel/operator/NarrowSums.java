package dev.baton.morsel.operator;

import java.nio.ByteBuffer;

import dev.baton.morsel.data.ColumnPage;

/**
 * Sums of a source column read in its stored encoding, one loop per encoding: a frame-of-reference
 * page adds {@code base} once per row group rather than once per row.
 */
final class NarrowSums {

    private NarrowSums() {
    }

    /** The sum of the selected rows' values. */
    static long sum(ColumnPage page, int[] sel, int n) {
        ByteBuffer d = page.data();
        long s = 0;
        switch (page.encoding()) {
            case BYTE -> { for (int j = 0; j < n; j++) { s += d.get(sel[j]) & 0xFF; } }
            case SHORT -> { for (int j = 0; j < n; j++) { s += d.getShort(sel[j] << 1) & 0xFFFF; } }
            case INT -> { for (int j = 0; j < n; j++) { s += d.getInt(sel[j] << 2) & 0xFFFF_FFFFL; } }
            case DICTIONARY -> {
                long[] dict = page.dictionary();
                for (int j = 0; j < n; j++) {
                    s += dict[d.get(sel[j]) & 0xFF];
                }
                return s;
            }
            case LONG -> {
                for (int j = 0; j < n; j++) {
                    s += d.getLong(sel[j] << 3);
                }
                return s;
            }
        }
        return s + page.base() * n;
    }

    /** {@code values[slots[j] + slot] += value(sel[j])} for every selected position {@code j}. */
    static void sumInto(ColumnPage page, int[] sel, int n, int[] slots, long[] values, int slot) {
        ByteBuffer d = page.data();
        long base = page.base();
        switch (page.encoding()) {
            case BYTE -> { for (int j = 0; j < n; j++) { values[slots[j] + slot] += base + (d.get(sel[j]) & 0xFF); } }
            case SHORT -> { for (int j = 0; j < n; j++) { values[slots[j] + slot] += base + (d.getShort(sel[j] << 1) & 0xFFFF); } }
            case INT -> { for (int j = 0; j < n; j++) { values[slots[j] + slot] += base + (d.getInt(sel[j] << 2) & 0xFFFF_FFFFL); } }
            case DICTIONARY -> {
                long[] dict = page.dictionary();
                for (int j = 0; j < n; j++) {
                    values[slots[j] + slot] += dict[d.get(sel[j]) & 0xFF];
                }
            }
            case LONG -> { for (int j = 0; j < n; j++) { values[slots[j] + slot] += d.getLong(sel[j] << 3); } }
        }
    }
}
