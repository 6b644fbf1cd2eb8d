package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One committed record as a scan hands it to a decoder: where it stands and its key and value bytes.
 * The view and its buffers are reused for the next record: read them during the visit (their position
 * and limit frame the bytes), copy what must outlive it, and leave their positions as they are only if
 * you need them again within the visit.
 */
public interface RecordView {

    int partition();

    long offset();

    /** The key's bytes, or null for a null key. */
    ByteBuffer key();

    /** The value's bytes, or null for a null value (a tombstone). */
    ByteBuffer value();

    /** The key's size in bytes, -1 for a null key. */
    int keySize();

    /** The value's size in bytes, -1 for a null value. */
    int valueSize();

    /** A view of a consumer's record, for callers that hold one (the consumer path, tests). */
    static RecordView of(ConsumerRecord<ByteBuffer, ByteBuffer> record) {
        return new ConsumerRecordView().of(record);
    }

    /** A reusable view of a consumer's records: {@link #of} points it at the next one. */
    final class ConsumerRecordView implements RecordView {
        private ConsumerRecord<ByteBuffer, ByteBuffer> record;

        ConsumerRecordView of(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
            this.record = r;
            return this;
        }

        @Override
        public int partition() {
            return record.partition();
        }

        @Override
        public long offset() {
            return record.offset();
        }

        @Override
        public ByteBuffer key() {
            return record.key();
        }

        @Override
        public ByteBuffer value() {
            return record.value();
        }

        @Override
        public int keySize() {
            return record.key() == null ? -1 : record.serializedKeySize();
        }

        @Override
        public int valueSize() {
            return record.value() == null ? -1 : record.serializedValueSize();
        }
    }
}
