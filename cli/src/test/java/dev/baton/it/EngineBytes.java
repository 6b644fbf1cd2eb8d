package dev.baton.it;

import java.nio.ByteBuffer;

/** The byte forms the engine's ITs write and dispatch: an 8-byte big-endian long (keys, values) and a step's Avro buffer. */
final class EngineBytes {

    private EngineBytes() {
    }

    static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** The buffer's remaining bytes (an Avro {@code toByteBuffer()}), read once. */
    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
