package dev.baton.morsel.data;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;

/**
 * One column of one page, in its stored encoding: operators read the narrow values in place
 * (switching on {@link #encoding()} once per page, then looping over {@link #data()}), so a byte
 * column costs a byte a row to scan. {@link #get(int)} decodes one value for cold paths.
 *
 * <p>Immutable view; {@link #data()} is a little-endian buffer whose index 0 is row 0. Thread-safe.
 */
public final class ColumnPage {

    private final ColumnEncoding encoding;
    private final int rows;
    private final long base;
    private final ByteBuffer data;
    private final long[] dictionary;

    ColumnPage(ColumnEncoding encoding, int rows, long base, ByteBuffer data, long[] dictionary) {
        if ((encoding == ColumnEncoding.DICTIONARY) != (dictionary != null)) {
            throw new IllegalArgumentException("a dictionary is needed exactly for DICTIONARY pages, encoding was " + encoding);
        }
        this.encoding = encoding;
        this.rows = rows;
        this.base = base;
        this.data = data.order(ByteOrder.LITTLE_ENDIAN);
        this.dictionary = dictionary;
    }

    /** A page of plain longs (a source that decodes rows itself, such as a topic); copies the values once. */
    public static ColumnPage ofLongs(LongBuffer values, int rows) {
        ByteBuffer b = ByteBuffer.allocate(rows * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < rows; i++) {
            b.putLong(i * Long.BYTES, values.get(i));
        }
        return new ColumnPage(ColumnEncoding.LONG, rows, 0, b, null);
    }

    /**
     * A page of plain longs over {@code littleEndian}'s first {@code rows} values, not copied: for a
     * source that decodes each page into a buffer it reuses (a topic), the page is valid until that
     * source's reader moves to another page, as {@link PageSource#page} is.
     */
    public static ColumnPage wrapLongs(ByteBuffer littleEndian, int rows) {
        if (littleEndian.order() != ByteOrder.LITTLE_ENDIAN || littleEndian.capacity() < rows * Long.BYTES) {
            throw new IllegalArgumentException("need a little-endian buffer of at least " + rows * Long.BYTES + " bytes, was "
                    + littleEndian.order() + " of " + littleEndian.capacity());
        }
        return new ColumnPage(ColumnEncoding.LONG, rows, 0, littleEndian, null);
    }

    public ColumnEncoding encoding() {
        return encoding;
    }

    public int rows() {
        return rows;
    }

    /** The frame of reference of BYTE, SHORT and INT pages (0 for the others). */
    public long base() {
        return base;
    }

    public ByteBuffer data() {
        return data;
    }

    /** The sorted distinct values of a DICTIONARY page; {@code null} otherwise. Do not modify. */
    public long[] dictionary() {
        return dictionary;
    }

    /**
     * The least value this page may hold, from its encoding alone (no value is read): a frame page's base, a dictionary's
     * first value, {@link Long#MIN_VALUE} for a {@link ColumnEncoding#LONG} page, which bounds nothing.
     */
    public long lowerBound() {
        return switch (encoding) {
            case BYTE, SHORT, INT -> base;
            case DICTIONARY -> dictionary.length == 0 ? Long.MIN_VALUE : dictionary[0];
            case LONG -> Long.MIN_VALUE;
        };
    }

    /**
     * The greatest value this page may hold, from its encoding alone: a frame page's base plus the largest distance its
     * width stores (not the page's maximum, which the file does not keep), a dictionary's last value, {@link Long#MAX_VALUE}
     * for a {@link ColumnEncoding#LONG} page.
     */
    public long upperBound() {
        long widest = switch (encoding) {
            case BYTE -> 0xFFL;
            case SHORT -> 0xFFFFL;
            case INT -> 0xFFFF_FFFFL;
            case DICTIONARY -> dictionary.length == 0 ? Long.MAX_VALUE : dictionary[dictionary.length - 1];
            case LONG -> Long.MAX_VALUE;
        };
        if (encoding == ColumnEncoding.DICTIONARY || encoding == ColumnEncoding.LONG) {
            return widest;
        }
        long bound = base + widest;
        return bound < base ? Long.MAX_VALUE : bound; // past Long.MAX_VALUE
    }

    /** The value of row {@code row}. */
    public long get(int row) {
        return switch (encoding) {
            case BYTE -> base + (data.get(row) & 0xFFL);
            case SHORT -> base + (data.getShort(row << 1) & 0xFFFFL);
            case INT -> base + (data.getInt(row << 2) & 0xFFFF_FFFFL);
            case DICTIONARY -> dictionary[data.get(row) & 0xFF];
            case LONG -> data.getLong(row << 3);
        };
    }

    /** Every value widened into a new array: for tools and tests, never for a scan. */
    public long[] toLongArray() {
        long[] out = new long[rows];
        copyTo(out);
        return out;
    }

    /** Widens every value into {@code out[0 .. rows)}: one loop per encoding, for hand-written loops and tools. */
    public void copyTo(long[] out) {
        switch (encoding) {
            case BYTE -> { for (int i = 0; i < rows; i++) { out[i] = base + (data.get(i) & 0xFFL); } }
            case SHORT -> { for (int i = 0; i < rows; i++) { out[i] = base + (data.getShort(i << 1) & 0xFFFFL); } }
            case INT -> { for (int i = 0; i < rows; i++) { out[i] = base + (data.getInt(i << 2) & 0xFFFF_FFFFL); } }
            case DICTIONARY -> { for (int i = 0; i < rows; i++) { out[i] = dictionary[data.get(i) & 0xFF]; } }
            case LONG -> { for (int i = 0; i < rows; i++) { out[i] = data.getLong(i << 3); } }
        }
    }
}
