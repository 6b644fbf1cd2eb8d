package dev.baton.morsel.node;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@code GROUP BY key: sum(value), count(*)} partial or result: key → {sum, count}, and its wire
 * form (24 bytes per group) for exchange records and merge outputs.
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

    static byte[] encode(Map<Long, long[]> rows) {
        ByteBuffer b = ByteBuffer.allocate(rows.size() * 24);
        rows.forEach((k, v) -> b.putLong(k).putLong(v[0]).putLong(v[1]));
        return b.array();
    }

    static Map<Long, long[]> decode(byte[] bytes) {
        if (bytes.length % 24 != 0) {
            throw new IllegalArgumentException("sum rows are 24 bytes each; got " + bytes.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        Map<Long, long[]> rows = new HashMap<>();
        while (b.hasRemaining()) {
            add(rows, b.getLong(), b.getLong(), b.getLong());
        }
        return rows;
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
