package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;

import org.apache.kafka.common.record.internal.Record;

/**
 * The record a {@link BatchWalk} stands at: for an uncompressed batch, positions in the fetched bytes framed by
 * two buffers reused from record to record; for a compressed one, the buffers of Kafka's decompressed record.
 */
final class FetchedRecord implements RecordView {

    private final int partition;
    private final ByteBuffer keyFrame;
    private final ByteBuffer valueFrame;
    private long offset;
    private ByteBuffer key;
    private ByteBuffer value;
    private int keySize;
    private int valueSize;

    FetchedRecord(int partition, ByteBuffer fetched) {
        this.partition = partition;
        this.keyFrame = fetched.duplicate();
        this.valueFrame = fetched.duplicate();
    }

    void set(long offset, int keyAt, int keySize, int valueAt, int valueSize) {
        this.offset = offset;
        this.keySize = keySize;
        this.valueSize = valueSize;
        this.key = keySize < 0 ? null : frame(keyFrame, keyAt, keySize);
        this.value = valueSize < 0 ? null : frame(valueFrame, valueAt, valueSize);
    }

    void set(Record r) {
        this.offset = r.offset();
        this.key = r.key();
        this.value = r.value();
        this.keySize = r.keySize();
        this.valueSize = r.valueSize();
    }

    private static ByteBuffer frame(ByteBuffer b, int at, int size) {
        b.limit(at + size); // lowers the position too if it stood past it
        b.position(at);
        return b;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public ByteBuffer key() {
        return key;
    }

    @Override
    public ByteBuffer value() {
        return value;
    }

    @Override
    public int keySize() {
        return keySize;
    }

    @Override
    public int valueSize() {
        return valueSize;
    }
}
