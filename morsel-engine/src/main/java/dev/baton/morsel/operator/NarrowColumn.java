package dev.baton.morsel.operator;

import java.nio.ByteBuffer;

import dev.baton.morsel.data.ColumnEncoding;
import dev.baton.morsel.data.ColumnPage;

/**
 * One source column of a batch's page, its stored values copied (one bulk copy) into a reused
 * heap array of their width: {@link #bytes} for BYTE and DICTIONARY pages, {@link #shorts},
 * {@link #ints} or {@link #longs}. Values stay narrow and unsigned in the page's frame; widening is
 * the reader's business.
 *
 * <p>Why copy: a loop over a page's mapped {@code ByteBuffer} pays an index check and a scope check
 * per value that the JIT does not hoist (a Q6 filter spent 10 cycles a row in {@code checkIndex});
 * a loop over a heap array has its bounds checks hoisted, and the copy costs a memcpy.
 * One per batch column; not thread-safe.
 */
final class NarrowColumn {

    ColumnEncoding encoding;
    long base;
    long[] dictionary;
    byte[] bytes = new byte[0];
    short[] shorts = new short[0];
    int[] ints = new int[0];
    long[] longs = new long[0];

    void load(ColumnPage page) {
        encoding = page.encoding();
        base = page.base();
        dictionary = page.dictionary();
        int n = page.rows();
        ByteBuffer d = page.data();
        switch (encoding) {
            case BYTE, DICTIONARY -> {
                if (bytes.length < n) {
                    bytes = new byte[n];
                }
                d.get(0, bytes, 0, n);
            }
            case SHORT -> {
                if (shorts.length < n) {
                    shorts = new short[n];
                }
                d.asShortBuffer().get(0, shorts, 0, n);
            }
            case INT -> {
                if (ints.length < n) {
                    ints = new int[n];
                }
                d.asIntBuffer().get(0, ints, 0, n);
            }
            case LONG -> {
                if (longs.length < n) {
                    longs = new long[n];
                }
                d.asLongBuffer().get(0, longs, 0, n);
            }
        }
    }

    /** Widens rows {@code [0, n)} into {@code out}. */
    void copyTo(long[] out, int n) {
        long b = base;
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int i = 0; i < n; i++) { out[i] = b + (v[i] & 0xFF); } }
            case SHORT -> { short[] v = shorts; for (int i = 0; i < n; i++) { out[i] = b + (v[i] & 0xFFFF); } }
            case INT -> { int[] v = ints; for (int i = 0; i < n; i++) { out[i] = b + (v[i] & 0xFFFF_FFFFL); } }
            case DICTIONARY -> { byte[] v = bytes; long[] dict = dictionary; for (int i = 0; i < n; i++) { out[i] = dict[v[i] & 0xFF]; } }
            case LONG -> System.arraycopy(longs, 0, out, 0, n);
        }
    }

    /** Widens the selected rows into {@code out[row]}. */
    void decode(int[] sel, int n, long[] out) {
        long b = base;
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = b + (v[i] & 0xFF); } }
            case SHORT -> { short[] v = shorts; for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = b + (v[i] & 0xFFFF); } }
            case INT -> { int[] v = ints; for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = b + (v[i] & 0xFFFF_FFFFL); } }
            case DICTIONARY -> { byte[] v = bytes; long[] dict = dictionary; for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = dict[v[i] & 0xFF]; } }
            case LONG -> { long[] v = longs; for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = v[i]; } }
        }
    }

    /** Whether this page stores unsigned offsets from {@link #base} ({@link #linear}, {@link #plus}, {@link #times} apply). */
    boolean framed() {
        return encoding == ColumnEncoding.BYTE || encoding == ColumnEncoding.SHORT || encoding == ColumnEncoding.INT;
    }

    /*
     * The three loops below widen a framed page and apply one arithmetic step in the same pass, so
     * an expression over a source column does not first widen it into a vector and then read that
     * vector again (Q1's projections made six such extra passes over every page).
     */

    /** {@code out[i] = u[i] * m + c} for rows {@code [0, n)}, {@code u} the stored offset; a framed page only. */
    void linear(long m, long c, long[] out, int n) {
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFF) * m + c; } }
            case SHORT -> { short[] v = shorts; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFFFF) * m + c; } }
            case INT -> { int[] v = ints; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFFFF_FFFFL) * m + c; } }
            default -> throw new IllegalStateException("not a framed page: " + encoding);
        }
    }

    /** {@code out[i] = sign * value[i] + y[i]} for rows {@code [0, n)}, sign 1 or -1; a framed page only. */
    void plus(long sign, long[] y, long[] out, int n) {
        long c = sign * base;
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFF) * sign + c + y[i]; } }
            case SHORT -> { short[] v = shorts; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFFFF) * sign + c + y[i]; } }
            case INT -> { int[] v = ints; for (int i = 0; i < n; i++) { out[i] = (v[i] & 0xFFFF_FFFFL) * sign + c + y[i]; } }
            default -> throw new IllegalStateException("not a framed page: " + encoding);
        }
    }

    /** {@code out[i] = value[i] * y[i]} for rows {@code [0, n)}; a framed page only. */
    void times(long[] y, long[] out, int n) {
        long b = base;
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int i = 0; i < n; i++) { out[i] = (b + (v[i] & 0xFF)) * y[i]; } }
            case SHORT -> { short[] v = shorts; for (int i = 0; i < n; i++) { out[i] = (b + (v[i] & 0xFFFF)) * y[i]; } }
            case INT -> { int[] v = ints; for (int i = 0; i < n; i++) { out[i] = (b + (v[i] & 0xFFFF_FFFFL)) * y[i]; } }
            default -> throw new IllegalStateException("not a framed page: " + encoding);
        }
    }

    /** The sum of the selected rows' values. */
    long sum(int[] sel, int n) {
        long s = 0;
        switch (encoding) {
            case BYTE -> { byte[] v = bytes; for (int j = 0; j < n; j++) { s += v[sel[j]] & 0xFF; } }
            case SHORT -> { short[] v = shorts; for (int j = 0; j < n; j++) { s += v[sel[j]] & 0xFFFF; } }
            case INT -> { int[] v = ints; for (int j = 0; j < n; j++) { s += v[sel[j]] & 0xFFFF_FFFFL; } }
            case DICTIONARY -> {
                byte[] v = bytes;
                for (int j = 0; j < n; j++) {
                    s += dictionary[v[sel[j]] & 0xFF];
                }
                return s;
            }
            case LONG -> {
                long[] v = longs;
                for (int j = 0; j < n; j++) {
                    s += v[sel[j]];
                }
                return s;
            }
        }
        return s + base * n;
    }
}
