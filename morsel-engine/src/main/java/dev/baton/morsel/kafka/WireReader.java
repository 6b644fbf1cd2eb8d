package dev.baton.morsel.kafka;

import java.io.EOFException;
import java.io.IOException;

import dev.baton.schemas.EventSerde;

/**
 * Avro's binary encoding read straight from a value's bytes, for {@link ProjectionPlan}: zig-zag
 * varints, little-endian floats, length-prefixed strings and bytes, blocked arrays and maps. It is
 * repointed at each value ({@link #reset}) and allocates nothing, where Avro's {@code BinaryDecoder}
 * configures a byte source and buffer accessor per value.
 *
 * <p>Damage is reported as Avro reports it to {@code EventSerde}: running out of bytes is an
 * {@link EOFException} (a truncated value); a varint longer than its type allows, a negative
 * length or block size, or a length or count beyond what a Java array holds is an {@link IOException} (a
 * corrupt body). Where the reader's schema lacks a value, Avro skips it more leniently, and so do
 * {@link #skipUnread} and {@link #blockCount} when told to skip.
 *
 * <p>Not thread-safe: one per {@link ProjectedRow}.
 */
final class WireReader {

    /** The longest string or bytes, and the most items of an array or map, Avro reads by default (its {@code SystemLimitException} bounds). */
    private static final int MAX_LENGTH = Integer.MAX_VALUE - 8;

    private byte[] buf = new byte[0];
    private int pos;
    private int limit;
    /** The items of this value's arrays that take no bytes, so far: Avro caps them per value, not per array. */
    private long zeroByteItems;
    /** How deep in a record that contains itself (a failure's causes) the reader is. */
    private int recursions;

    void reset(byte[] value, int offset, int length) {
        buf = value;
        pos = offset;
        limit = offset + length;
        zeroByteItems = 0;
        recursions = 0;
    }

    /**
     * One level further into a record that contains itself: refused past {@link EventSerde#MAX_FAILURE_DEPTH} levels, as
     * {@code EventSerde} refuses it (the first level is the record itself, read before any recursion).
     */
    void enterRecursion() throws IOException {
        if (++recursions >= EventSerde.MAX_FAILURE_DEPTH) {
            throw new IOException("a failure's causes nest deeper than " + EventSerde.MAX_FAILURE_DEPTH);
        }
    }

    void leaveRecursion() {
        recursions--;
    }

    boolean isEnd() {
        return pos == limit;
    }

    int readInt() throws IOException {
        int n = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            int b = nextByte();
            n |= (b & 0x7f) << shift;
            if (b >= 0) {
                return (n >>> 1) ^ -(n & 1);
            }
        }
        throw new IOException("invalid int encoding: more than 5 bytes");
    }

    long readLong() throws IOException {
        long n = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = nextByte();
            n |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return (n >>> 1) ^ -(n & 1);
            }
        }
        throw new IOException("invalid long encoding: more than 10 bytes");
    }

    boolean readBoolean() throws IOException {
        return nextByte() == 1;
    }

    float readFloat() throws IOException {
        return Float.intBitsToFloat((int) readFixedLittleEndian(4));
    }

    double readDouble() throws IOException {
        return Double.longBitsToDouble(readFixedLittleEndian(8));
    }

    /** A string or bytes value, as a view of the value's bytes in {@code row}'s slot {@code slot}: nothing copied. */
    void readString(ProjectedRow row, int slot) throws IOException {
        int length = length();
        row.setString(slot, buf, pos, length);
        pos += length;
    }

    /** Skips a string or bytes value. */
    void skipString() throws IOException {
        int length = length(); // not `pos += length()`: that adds to pos as it was before the length was read
        pos += length;
    }

    /**
     * Skips a string or bytes value the reader's schema lacks, as Avro skips one: a negative length skips nothing
     * (where a value the reader has is refused for it, by {@link #skipString}).
     */
    void skipUnread() throws IOException {
        long length = readLong();
        if (length > limit - pos) {
            throw new EOFException("needed " + length + " bytes, " + (limit - pos) + " left");
        }
        if (length > 0) {
            pos += (int) length;
        }
    }

    void skipFixed(int bytes) throws IOException {
        need(bytes);
        pos += bytes;
    }

    /**
     * Reads the item count of an array or map block: 0 ends the value; a negative count is followed
     * by the block's size in bytes, which {@code skipBlock} says whether to skip at once.
     *
     * @return the block's item count, or -1 if the block was skipped whole by its byte size
     */
    long blockCount(boolean skipBlock) throws IOException {
        long count = readLong();
        if (count > MAX_LENGTH) {
            throw new IOException("a block of " + count + " items is over the limit of " + MAX_LENGTH);
        }
        if (count >= 0) {
            return count;
        }
        if (count == Long.MIN_VALUE) { // refused before its size is read, as Avro refuses it
            throw new IOException("malformed block: count " + count);
        }
        long bytes = readLong();
        if (bytes < 0) {
            throw new IOException("malformed block: count " + count + ", size " + bytes);
        }
        if (skipBlock) {
            if (bytes > limit - pos) {
                throw new EOFException("a block of " + bytes + " bytes with " + (limit - pos) + " left");
            }
            pos += (int) bytes;
            return -1;
        }
        return -count;
    }

    /**
     * Reads the item count of the next block of an array or map the reader's schema has, as Avro's resolving reader reads
     * one: a negative count's byte size is checked and then not used (the items are read one by one whatever it says),
     * and the items of one value may not add up past Avro's collection limit.
     *
     * @param before the items of this value's earlier blocks
     */
    long itemCount(long before) throws IOException {
        long count = blockCount(false);
        if (count > MAX_LENGTH - before) {
            throw new IOException("a collection of " + before + " + " + count + " items is over the limit of " + MAX_LENGTH);
        }
        return count;
    }

    /**
     * Checks an array block of {@code count} items the reader's schema has before any is read, as Avro's fast reader does
     * ({@code FastReaderBuilder.checkArrayBlock}): items that take no bytes are counted against the value's cap, others
     * must fit the bytes left at {@code minItemBytes} each, or the value is truncated.
     *
     * @param minItemBytes the least encoded size of the reader's item type ({@link AvroArrayLimits#minItemBytes})
     */
    void checkArrayBlock(long count, int minItemBytes) throws IOException {
        if (minItemBytes == 0) {
            countZeroByteItems(count);
        } else if (count * minItemBytes > limit - pos) { // no overflow: count is under 2^31, and so is minItemBytes
            throw new EOFException("an array block of " + count + " items of at least " + minItemBytes + " bytes with " + (limit - pos) + " left");
        }
    }

    /**
     * Counts {@code count} items that take no bytes against Avro's cap for one value
     * ({@code SystemLimitException.checkMaxCollectionAllocation}, an {@code AvroRuntimeException}: a corrupt body).
     */
    void countZeroByteItems(long count) throws IOException {
        zeroByteItems += count; // no overflow: both stay under 2^31 until refused
        if (zeroByteItems > AvroArrayLimits.MAX_ZERO_BYTE_ITEMS) {
            throw new IOException("arrays of " + zeroByteItems + " items that take no bytes are over the limit of " + AvroArrayLimits.MAX_ZERO_BYTE_ITEMS);
        }
    }

    private int length() throws IOException {
        long length = readLong();
        if (length < 0) {
            throw new IOException("malformed data: length is negative: " + length);
        }
        if (length > MAX_LENGTH) {
            throw new IOException("a length of " + length + " is over the limit of " + MAX_LENGTH);
        }
        need((int) length);
        return (int) length;
    }

    private long readFixedLittleEndian(int bytes) throws IOException {
        need(bytes);
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v |= (long) (buf[pos + i] & 0xff) << (8 * i);
        }
        pos += bytes;
        return v;
    }

    /**
     * The next byte, signed (a varint's last byte is the one >= 0). Kept under C1's inlining size (35 bytes of
     * bytecode, the message built elsewhere): the cold commands run C1 only, where a call per byte read cost ~10% of
     * the decode (docs/decisions.md, "The projected decode about twice as cheap").
     */
    private int nextByte() throws EOFException {
        if (pos >= limit) {
            throw endedAt();
        }
        return buf[pos++];
    }

    private EOFException endedAt() {
        return new EOFException("the value ended at byte " + pos);
    }

    private void need(int bytes) throws EOFException {
        if (bytes > limit - pos) {
            throw new EOFException("needed " + bytes + " bytes, " + (limit - pos) + " left");
        }
    }
}
