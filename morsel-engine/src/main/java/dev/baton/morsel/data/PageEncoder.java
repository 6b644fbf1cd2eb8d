package dev.baton.morsel.data;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Picks the narrowest encoding for one column page and writes it. The choice is by encoded size:
 * the frame-of-reference width that fits the page's span, or a dictionary when the page has at most
 * {@link ColumnEncoding#MAX_DICTIONARY} distinct values and that is smaller (ties go to the frame of
 * reference, which reads without an indirection).
 */
final class PageEncoder {

    /** What one encoded page is: its encoding, base and dictionary; the bytes are in the encoder's buffer. */
    record Encoded(ColumnEncoding encoding, long base, long[] dictionary, int bytes) {
    }

    private final ByteBuffer out;
    private final long[] distinct = new long[ColumnEncoding.MAX_DICTIONARY + 1];

    PageEncoder(int maxRows) {
        out = ByteBuffer.allocate(maxRows * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Encodes {@code values[0..rows)}; the encoded bytes are {@link #buffer()}{@code [0, bytes)}. */
    Encoded encode(long[] values, int rows) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < rows; i++) {
            min = Math.min(min, values[i]);
            max = Math.max(max, values[i]);
        }
        if (rows == 0) {
            min = max = 0;
        }
        ColumnEncoding frame = ColumnEncoding.forSpan(min, max);
        long frameBytes = (long) rows * frame.bytesPerValue();
        int d = frame == ColumnEncoding.BYTE ? -1 : distinctValues(values, rows);
        if (d > 0 && (long) rows + (long) d * Long.BYTES < frameBytes) {
            long[] dictionary = Arrays.copyOf(distinct, d);
            Arrays.sort(dictionary);
            for (int i = 0; i < rows; i++) {
                out.put(i, (byte) Arrays.binarySearch(dictionary, values[i]));
            }
            return new Encoded(ColumnEncoding.DICTIONARY, 0, dictionary, rows);
        }
        long base = frame == ColumnEncoding.LONG ? 0 : min;
        for (int i = 0; i < rows; i++) {
            long v = values[i] - base;
            switch (frame) {
                case BYTE -> out.put(i, (byte) v);
                case SHORT -> out.putShort(i << 1, (short) v);
                case INT -> out.putInt(i << 2, (int) v);
                default -> out.putLong(i << 3, v);
            }
        }
        return new Encoded(frame, base, null, (int) frameBytes);
    }

    ByteBuffer buffer() {
        return out;
    }

    /** How many distinct values, or -1 once there are more than a dictionary holds. */
    private int distinctValues(long[] values, int rows) {
        int n = 0;
        for (int i = 0; i < rows; i++) {
            long v = values[i];
            if (i > 0 && v == values[i - 1]) {
                continue;
            }
            if (indexOf(v, n) < 0) {
                if (n == ColumnEncoding.MAX_DICTIONARY) {
                    return -1;
                }
                distinct[n++] = v;
            }
        }
        return n;
    }

    private int indexOf(long v, int n) {
        for (int j = 0; j < n; j++) {
            if (distinct[j] == v) {
                return j;
            }
        }
        return -1;
    }
}
