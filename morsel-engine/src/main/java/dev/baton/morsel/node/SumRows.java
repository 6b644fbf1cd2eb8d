package dev.baton.morsel.node;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A {@code GROUP BY key: sum(value), count(*)} partial or result: key → {sum, count}, and the
 * 8-byte big-endian longs of exchange records' keys and the source topic's records.
 */
final class SumRows {

    private SumRows() {
    }

    static void add(Map<Long, long[]> rows, long key, long sum, long count) {
        long[] acc = rows.computeIfAbsent(key, k -> new long[2]);
        acc[0] += sum;
        acc[1] += count;
    }

    static Map<Long, long[]> merge(Map<Long, long[]> into, Map<Long, long[]> from) {
        from.forEach((k, v) -> add(into, k, v[0], v[1]));
        return into;
    }

    static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    static long longOf(byte[] b) {
        if (b == null || b.length != 8) {
            throw new IllegalArgumentException("expected an 8-byte long, got " + (b == null ? "null" : b.length + " bytes"));
        }
        return ByteBuffer.wrap(b).getLong();
    }
}
