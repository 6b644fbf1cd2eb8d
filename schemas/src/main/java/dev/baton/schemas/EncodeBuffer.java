package dev.baton.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.avro.io.BinaryData;
import org.apache.avro.io.BinaryEncoder;

/**
 * One thread's scratch space for encoding a record: a growable byte array and the Avro encoder that
 * writes into it, both reused from record to record. The streams app encodes several records per
 * activity on one thread; a fresh {@code ByteArrayOutputStream} per record (synchronized writes,
 * doubling copies from 128 bytes up, a final copy) was the largest allocation site on the stream thread.
 * Not thread-safe: one per thread.
 *
 * <p>The encoder writes Avro's binary encoding straight into the array ({@link ArrayEncoder}), byte for
 * byte what Avro's own {@code DirectBinaryEncoder} writes ({@code EncodeBufferProperties} compares them).
 */
final class EncodeBuffer {

    private static final int INITIAL_BYTES = 1024;
    /** A buffer grown past this by one large record is dropped afterwards rather than kept per thread. */
    private static final int RETAINED_BYTES = 64 * 1024;
    /** The most bytes one varint-encoded long, or a double, takes. */
    private static final int MAX_PRIMITIVE_BYTES = 10;

    private static final ThreadLocal<EncodeBuffer> PER_THREAD = ThreadLocal.withInitial(EncodeBuffer::new);

    private byte[] bytes = new byte[INITIAL_BYTES];
    private int count;
    private final ArrayEncoder encoder = new ArrayEncoder();

    /** This thread's buffer, emptied. */
    static EncodeBuffer forThisThread() {
        EncodeBuffer buffer = PER_THREAD.get();
        buffer.count = 0;
        return buffer;
    }

    /** An empty buffer of its own, not this thread's: for tests. */
    static EncodeBuffer detached() {
        return new EncodeBuffer();
    }

    /** The encoder that writes into this buffer (no buffering of its own, so nothing to flush). */
    BinaryEncoder encoder() {
        return encoder;
    }

    /** Appends one byte, the low eight bits of {@code b}. */
    void write(int b) {
        ensureRoom(1);
        bytes[count++] = (byte) b;
    }

    /** The bytes written since {@link #forThisThread()}, as a new array of exactly that length. */
    byte[] toByteArray() {
        byte[] copy = Arrays.copyOf(bytes, count);
        if (bytes.length > RETAINED_BYTES) {
            bytes = new byte[INITIAL_BYTES];
        }
        return copy;
    }

    private void write(byte[] source, int offset, int length) {
        ensureRoom(length);
        System.arraycopy(source, offset, bytes, count, length);
        count += length;
    }

    private void ensureRoom(int more) {
        if (count + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, count + more));
        }
    }

    /**
     * Avro's binary encoding into {@link #bytes}. Avro's {@code DirectBinaryEncoder} writes every field through an
     * {@code OutputStream} call, and a string by copying it char by char into a scratch array, then into the stream;
     * here a field is written in place, and an ASCII string char by char into the array itself. In the streams app Avro's
     * encoders were ~16% of the stream thread, {@code writeString} alone 6.9% (docs/decisions.md, issue 29).
     */
    private final class ArrayEncoder extends BinaryEncoder {

        @Override
        public void writeBoolean(boolean b) {
            write(b ? 1 : 0);
        }

        @Override
        public void writeInt(int n) {
            ensureRoom(MAX_PRIMITIVE_BYTES);
            count += BinaryData.encodeInt(n, bytes, count);
        }

        @Override
        public void writeLong(long n) {
            ensureRoom(MAX_PRIMITIVE_BYTES);
            count += BinaryData.encodeLong(n, bytes, count);
        }

        @Override
        public void writeFloat(float f) {
            ensureRoom(MAX_PRIMITIVE_BYTES);
            count += BinaryData.encodeFloat(f, bytes, count);
        }

        @Override
        public void writeDouble(double d) {
            ensureRoom(MAX_PRIMITIVE_BYTES);
            count += BinaryData.encodeDouble(d, bytes, count);
        }

        @Override
        public void writeFixed(byte[] source, int offset, int length) {
            write(source, offset, length);
        }

        @Override
        public void writeBytes(ByteBuffer source) {
            int length = source.remaining();
            writeInt(length);
            if (source.hasArray()) {
                write(source.array(), source.arrayOffset() + source.position(), length);
            } else {
                ensureRoom(length);
                source.duplicate().get(bytes, count, length); // the caller's position stays where it was
                count += length;
            }
        }

        @Override
        public void writeString(String string) {
            int length = string.length();
            if (length == 0) {
                writeZero();
                return;
            }
            int start = count;
            writeInt(length); // an ASCII string's UTF-8 is one byte per char
            ensureRoom(length);
            byte[] into = bytes;
            int at = count;
            for (int i = 0; i < length; i++) {
                char c = string.charAt(i);
                if (c > 0x7F) {
                    count = start;
                    writeUtf8(string);
                    return;
                }
                into[at + i] = (byte) c;
            }
            count = at + length;
        }

        /** Any string: its UTF-8, as Avro writes it (an unpaired surrogate becomes '?'). */
        private void writeUtf8(String string) {
            byte[] utf8 = string.getBytes(StandardCharsets.UTF_8);
            writeInt(utf8.length);
            write(utf8, 0, utf8.length);
        }

        @Override
        protected void writeZero() {
            write(0);
        }

        @Override
        public int bytesBuffered() {
            return 0;
        }

        @Override
        public void flush() {
            // writes go straight into the array
        }
    }
}
