package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/** The batch-walk tests' shared means: records as Kafka's own iterator reads them and as a {@link BatchWalk} hands them out. */
final class WalkedRecords {

    private WalkedRecords() {
    }

    /** {@code offset:key=value} of each record at or after {@code from}, by Kafka's iterator. */
    static List<String> kafkasOwn(MemoryRecords records, long from) {
        List<String> out = new ArrayList<>();
        for (Record r : records.records()) {
            if (r.offset() >= from) {
                out.add(r.offset() + ":" + text(r.key()) + "=" + text(r.value()));
            }
        }
        return out;
    }

    /** The same, as a walk fetched at {@code from} hands them out (CRCs checked). */
    static List<String> walked(MemoryRecords records, long from) {
        BatchWalk walk = new BatchWalk(0, records, from, List.of(), true, BufferSupplier.create());
        List<String> out = new ArrayList<>();
        while (walk.ready()) {
            out.add(walk.view().offset() + ":" + text(walk.view().key()) + "=" + text(walk.view().value()));
            walk.take();
        }
        return out;
    }

    static SimpleRecord simple(String key, String value) {
        return new SimpleRecord(0L, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** Makes the CRC of {@code batch} (one v2 batch from position 0) match its bytes, as a broker would have sent it. */
    static void resealCrc(ByteBuffer batch) {
        CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(DefaultRecordBatch.CRC_OFFSET + 4).limit(batch.limit()));
        batch.putInt(DefaultRecordBatch.CRC_OFFSET, (int) crc.getValue());
    }

    /** The remaining bytes as UTF-8, "null" for none; the buffer is not moved. */
    static String text(ByteBuffer b) {
        return b == null ? "null" : StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }
}
