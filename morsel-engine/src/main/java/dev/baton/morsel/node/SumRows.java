package dev.baton.morsel.node;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import dev.baton.morsel.operator.AggregateResult;
import org.apache.kafka.clients.consumer.ConsumerRecord;

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

    /**
     * A source record that is not a row of this query (its key or value not 8 bytes): named by topic, partition and
     * offset, so the user can find it. Thrown on a scan thread, found again in what the scan threw ({@link #in}).
     */
    static final class NotARow extends RuntimeException {
        NotARow(String message) {
            super(message, null, false, false);
        }

        /** The {@code NotARow} among {@code e} and its causes, or null. */
        static NotARow in(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof NotARow n) {
                    return n;
                }
            }
            return null;
        }
    }

    static long keyOf(ConsumerRecord<byte[], byte[]> r) {
        return rowLong(r, "key", r.key());
    }

    static long valueOf(ConsumerRecord<byte[], byte[]> r) {
        return rowLong(r, "value", r.value());
    }

    private static long rowLong(ConsumerRecord<byte[], byte[]> r, String field, byte[] b) {
        if (b == null || b.length != Long.BYTES) {
            throw new NotARow("record " + r.topic() + "-" + r.partition() + "@" + r.offset() + " has " + (b == null ? "a null " + field
                    : "a " + b.length + "-byte " + field) + ": the group-by reads 8-byte big-endian keys and values (a long each);"
                    + " scan a topic of such records, or an offset range that holds only them");
        }
        return ByteBuffer.wrap(b).getLong();
    }
}
