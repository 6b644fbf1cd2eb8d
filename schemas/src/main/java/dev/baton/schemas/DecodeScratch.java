package dev.baton.schemas;

import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * One thread's Avro decoder, reused from record to record. A decoder made per record brings its own
 * byte source and its own scratch string buffer, which then grows by a copy at each longer string
 * it reads: several arrays per record for the ids every event carries. Reused, the scratch buffer
 * keeps the size of the longest string the thread has read, and only the strings themselves are made.
 * Not thread-safe: one per thread, and a decode must end before the next one on the thread begins.
 */
final class DecodeScratch {

    /** A decoder that read a record larger than this (so perhaps a string that large) is dropped afterwards, not kept per thread. */
    private static final int RETAINED_BYTES = 64 * 1024;

    private static final ThreadLocal<DecodeScratch> PER_THREAD = ThreadLocal.withInitial(DecodeScratch::new);

    private BinaryDecoder decoder;

    private DecodeScratch() {
    }

    /** This thread's decoder, set to read {@code length} bytes of {@code bytes} from {@code offset}. */
    static BinaryDecoder decoderOver(byte[] bytes, int offset, int length) {
        DecodeScratch scratch = PER_THREAD.get();
        BinaryDecoder reading = DecoderFactory.get().binaryDecoder(bytes, offset, length, scratch.decoder);
        scratch.decoder = length > RETAINED_BYTES ? null : reading;
        return reading;
    }
}
