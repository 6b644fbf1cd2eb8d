package dev.baton.schemas;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads Avro's binary encoding straight from a record's array, for the {@link DirectDecoders}: each value as Avro's
 * {@code BinaryDecoder} reads it, with the same failures (a value past the end is an {@link EOFException}, a malformed
 * one an {@link IOException}), and no length trusted beyond the bytes that are there. Not thread-safe; one per record.
 */
final class BodyReader {

    private final byte[] bytes;
    private int pos;
    private final int end;

    BodyReader(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.pos = offset;
        this.end = offset + length;
    }

    boolean atEnd() {
        return pos == end;
    }

    /** A zig-zag varint of at most five bytes; bits past 32 are dropped, as Avro drops them. */
    int readInt() throws IOException {
        int b = next();
        int n = b & 0x7f;
        for (int shift = 7; b > 0x7f; shift += 7) {
            if (shift > 28) {
                throw new IOException("Invalid int encoding");
            }
            b = next();
            n ^= (b & 0x7f) << shift;
        }
        return (n >>> 1) ^ -(n & 1);
    }

    /** A zig-zag varint of at most ten bytes. */
    long readLong() throws IOException {
        int b = next();
        long n = b & 0x7f;
        for (int shift = 7; b > 0x7f; shift += 7) {
            if (shift > 63) {
                throw new IOException("Invalid long encoding");
            }
            b = next();
            n ^= (b & 0x7fL) << shift;
        }
        return (n >>> 1) ^ -(n & 1);
    }

    /** One byte; only 1 is true, as Avro reads it. */
    boolean readBoolean() throws IOException {
        return next() == 1;
    }

    double readDouble() throws IOException {
        require(8);
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits |= (bytes[pos + i] & 0xffL) << (8 * i);
        }
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    String readString() throws IOException {
        int length = length();
        String s = new String(bytes, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    /** A fresh buffer holding a copy, as Avro reads {@code bytes} into a new one. */
    ByteBuffer readBytes() throws IOException {
        int length = length();
        byte[] copy = new byte[length];
        System.arraycopy(bytes, pos, copy, 0, length);
        pos += length;
        return ByteBuffer.wrap(copy);
    }

    /** The branch of a {@code ["null", T]} union: false for null, true for T. */
    boolean readPresent() throws IOException {
        int branch = readInt();
        if (branch != 0 && branch != 1) {
            throw new IOException("union branch " + branch + " of a two-branch union");
        }
        return branch == 1;
    }

    /** An enum's symbol by its index. */
    <E> E readEnum(E[] symbols) throws IOException {
        int index = readInt();
        if (index < 0 || index >= symbols.length) {
            throw new IOException("enum index " + index + " of " + symbols.length + " symbols");
        }
        return symbols[index];
    }

    /** An array of strings: blocks of a count (negative: followed by the block's size in bytes), ended by a zero count. */
    List<String> readStrings() throws IOException {
        List<String> items = new ArrayList<>();
        for (long count = readLong(); count != 0; count = readLong()) {
            if (count < 0) {
                count = -count;
                readLong(); // the block's size in bytes, for skipping it; reading needs only the count
            }
            for (long i = 0; i < count; i++) {
                if (pos == end) {
                    throw new EOFException(); // each string takes a byte at least, so a forged count ends here
                }
                items.add(readString());
            }
        }
        return items;
    }

    private int length() throws IOException {
        int length = readInt();
        if (length < 0) {
            throw new IOException("Malformed data. Length is negative: " + length);
        }
        require(length);
        return length;
    }

    private int next() throws EOFException {
        if (pos >= end) {
            throw new EOFException();
        }
        return bytes[pos++] & 0xff;
    }

    private void require(int length) throws EOFException {
        if (length > end - pos) {
            throw new EOFException();
        }
    }
}
