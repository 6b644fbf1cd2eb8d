package dev.baton.schemas;

import java.io.OutputStream;
import java.util.Arrays;

import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * One thread's scratch space for encoding a record: a growable byte array and the Avro encoder that
 * writes into it, both reused from record to record. The streams app encodes several records per
 * activity on one thread; a fresh {@code ByteArrayOutputStream} per record (synchronized writes,
 * doubling copies from 128 bytes up, a final copy) was the largest allocation site on the stream thread.
 * Not thread-safe: one per thread.
 */
final class EncodeBuffer extends OutputStream {

    private static final int INITIAL_BYTES = 1024;
    /** A buffer grown past this by one large record is dropped afterwards rather than kept per thread. */
    private static final int RETAINED_BYTES = 64 * 1024;

    private static final ThreadLocal<EncodeBuffer> PER_THREAD = ThreadLocal.withInitial(EncodeBuffer::new);

    private byte[] bytes = new byte[INITIAL_BYTES];
    private int count;
    private BinaryEncoder encoder;

    /** This thread's buffer, emptied. */
    static EncodeBuffer forThisThread() {
        EncodeBuffer buffer = PER_THREAD.get();
        buffer.count = 0;
        return buffer;
    }

    /** An encoder that writes straight into this buffer (no buffering of its own, so nothing to flush). */
    BinaryEncoder encoder() {
        encoder = EncoderFactory.get().directBinaryEncoder(this, encoder);
        return encoder;
    }

    @Override
    public void write(int b) {
        ensureRoom(1);
        bytes[count++] = (byte) b;
    }

    @Override
    public void write(byte[] source, int offset, int length) {
        ensureRoom(length);
        System.arraycopy(source, offset, bytes, count, length);
        count += length;
    }

    /** The bytes written since {@link #forThisThread()}, as a new array of exactly that length. */
    byte[] toByteArray() {
        byte[] copy = Arrays.copyOf(bytes, count);
        if (bytes.length > RETAINED_BYTES) {
            bytes = new byte[INITIAL_BYTES];
        }
        return copy;
    }

    private void ensureRoom(int more) {
        if (count + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, count + more));
        }
    }
}
