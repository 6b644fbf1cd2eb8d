package dev.baton.morsel.node;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import dev.baton.morsel.operator.AggregateResult;

/**
 * A {@code GROUP BY key: sum(value), count(*)} partial or result: key → {sum, count}, and the
 * 8-byte big-endian longs of exchange records' keys and the source topic's records.
 */
final class SumRows {

    /** Accumulators per group on the exchange: sum, count. */
    static final int SLOTS = 2;

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

    /** The rows as an aggregate result (keys ascending), for the exchange. */
    static AggregateResult toResult(Map<Long, long[]> rows) {
        long[] keys = rows.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        long[] values = new long[keys.length * SLOTS];
        for (int r = 0; r < keys.length; r++) {
            long[] v = rows.get(keys[r]);
            values[r * SLOTS] = v[0];
            values[r * SLOTS + 1] = v[1];
        }
        return new AggregateResult(keys, values, SLOTS);
    }

    static Map<Long, long[]> fromResult(AggregateResult result) {
        Map<Long, long[]> rows = new HashMap<>();
        for (int r = 0; r < result.rows(); r++) {
            add(rows, result.key(r), result.value(r, 0), result.value(r, 1));
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
