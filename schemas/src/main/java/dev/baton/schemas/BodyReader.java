package dev.baton.schemas;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Avro's binary encoding straight from a record's array, for the {@link DirectDecoders}: each value as Avro's
 * {@code BinaryDecoder} reads it, with the same failures (a value past the end is an {@link EOFException}, a malformed
 * one an {@link IOException}, checked in Avro's order so both give a record the same reason), and no length trusted beyond
 * the bytes that are there. Not thread-safe; one per record.
 */
final class BodyReader {

    /** Avro's limit on a string's, bytes' or array's length in Java (its {@code SystemLimitException} defaults). */
    private static final long MAX_LENGTH = 2_147_483_639L;

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

    /**
     * An array of strings: blocks of a count (negative: followed by the block's size in bytes), ended by a zero count.
     * Checked as Avro checks it: a count past its limit is corrupt, one with fewer bytes left than items (a string
     * takes one at least) ended early.
     */
    List<String> readStrings() throws IOException {
        List<String> items = new ArrayList<>();
        long total = 0;
        for (long count = readItemCount(); count != 0; count = readItemCount()) {
            if (count > MAX_LENGTH - total) {
                throw new IOException("an array of more than " + MAX_LENGTH + " items");
            }
            total += count;
            if (count > end - pos) {
                throw new EOFException();
            }
            for (long i = 0; i < count; i++) {
                items.add(readString());
            }
        }
        return items;
    }

    /**
     * An array of records, each at least {@code minItemBytes} long (Avro's count of its fields' varints and lengths): a
     * block promising more items than the bytes left can hold ended early, as Avro checks it before reading the block.
     */
    <T> List<T> readArray(int minItemBytes, DirectDecoders.Decoder<T> item) throws IOException {
        List<T> items = new ArrayList<>();
        long total = 0;
        for (long count = readItemCount(); count != 0; count = readItemCount()) {
            if (count > MAX_LENGTH - total) {
                throw new IOException("an array of more than " + MAX_LENGTH + " items");
            }
            total += count;
            if (count * minItemBytes > end - pos) {
                throw new EOFException();
            }
            for (long i = 0; i < count; i++) {
                items.add(item.read(this));
            }
        }
        return items;
    }

    /** A map of longs by string; Avro reads a map's items without first weighing its count against the bytes left. */
    Map<String, Long> readLongMap() throws IOException {
        Map<String, Long> entries = new HashMap<>();
        long total = 0;
        for (long count = readItemCount(); count != 0; count = readItemCount()) {
            if (count > MAX_LENGTH - total) {
                throw new IOException("a map of more than " + MAX_LENGTH + " entries");
            }
            total += count;
            for (long i = 0; i < count; i++) {
                String key = readString();
                entries.put(key, readLong());
            }
        }
        return entries;
    }

    private long readItemCount() throws IOException {
        long count = readLong();
        if (count < 0) {
            if (count == Long.MIN_VALUE) {
                throw new IOException("Malformed data. Length is negative: " + count);
            }
            long blockBytes = readLong(); // the block's size in bytes, for skipping it; reading needs only the count
            if (blockBytes < 0) {
                throw new IOException("Malformed data. Length is negative: " + blockBytes);
            }
            count = -count;
        }
        return count;
    }

    /** A string's or bytes' length, read as a long as Avro reads it: negative or past its limit is corrupt, past the end early. */
    private int length() throws IOException {
        long length = readLong();
        if (length < 0) {
            throw new IOException("Malformed data. Length is negative: " + length);
        }
        if (length > MAX_LENGTH) {
            throw new IOException("a length of " + length + " bytes, past " + MAX_LENGTH);
        }
        require((int) length);
        return (int) length;
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
