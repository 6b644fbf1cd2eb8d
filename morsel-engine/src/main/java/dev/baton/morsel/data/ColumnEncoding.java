package dev.baton.morsel.data;

/**
 * How one column page stores its values. The narrow widths are a frame of reference: a page keeps
 * its minimum as the base and each value as the unsigned distance from it, so a page of dates or
 * clustered keys fits 1 or 2 bytes a value however large the values are. A dictionary page keeps up
 * to 256 distinct values, sorted, and one code byte per row; codes keep the values' order, so a
 * range predicate becomes a range of codes.
 */
public enum ColumnEncoding {
    /** {@code base + (byte & 0xff)}. */
    BYTE(1),
    /** {@code base + (short & 0xffff)}. */
    SHORT(2),
    /** {@code base + (int & 0xffffffffL)}. */
    INT(4),
    /** {@code dictionary[code & 0xff]}, the dictionary sorted ascending. */
    DICTIONARY(1),
    /** The value itself. */
    LONG(8);

    /** Dictionary pages hold at most this many distinct values (one code byte). */
    public static final int MAX_DICTIONARY = 256;

    private final int bytesPerValue;

    ColumnEncoding(int bytesPerValue) {
        this.bytesPerValue = bytesPerValue;
    }

    public int bytesPerValue() {
        return bytesPerValue;
    }

    /** The narrowest frame-of-reference width for values spanning {@code [min, max]}. */
    public static ColumnEncoding forSpan(long min, long max) {
        if (max < min) {
            throw new IllegalArgumentException("span needs min <= max, was [" + min + ", " + max + "]");
        }
        long span = max - min;
        if (span < 0) { // the span itself overflows a signed long
            return LONG;
        }
        if (span <= 0xFFL) {
            return BYTE;
        }
        if (span <= 0xFFFFL) {
            return SHORT;
        }
        return span <= 0xFFFF_FFFFL ? INT : LONG;
    }
}
