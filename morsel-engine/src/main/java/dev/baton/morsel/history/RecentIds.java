package dev.baton.morsel.history;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.apache.avro.util.Utf8;

/**
 * One scanning thread's memory of the last string it looked up per column, in front of the shared
 * {@link StringIds}: a site's events sit together in its partition, so a record mostly repeats the
 * previous one's site key, workflow and namespace, and comparing bytes with the last one costs less
 * than the dictionary's hash lookup. Answers exactly what {@link StringIds} answers.
 *
 * <p>Not thread-safe: one per scanning thread.
 */
final class RecentIds {

    private final StringIds ids;
    private final byte[][] last;
    private final int[] lastLength;
    private final long[] lastId;

    RecentIds(StringIds ids, int columns) {
        this.ids = ids;
        this.last = new byte[columns][0];
        this.lastLength = new int[columns];
        this.lastId = new long[columns];
        Arrays.fill(lastId, -1); // nothing remembered yet: no id is negative
    }

    /** The id of {@code s} (a reused buffer, not kept), remembered as column {@code column}'s last. */
    long id(int column, Utf8 s) {
        return s == null ? StringIds.NULL : id(column, s.getBytes(), 0, s.getByteLength());
    }

    /** The id of the string these UTF-8 bytes spell (a record key; the array is not kept). */
    long id(int column, byte[] utf8) {
        return utf8 == null ? StringIds.NULL : id(column, utf8, 0, utf8.length);
    }

    /** The id of the string the remaining bytes of {@code utf8} spell (a record key read in place; neither it nor its position is kept or moved). */
    long id(int column, ByteBuffer utf8) {
        if (utf8 == null) {
            return StringIds.NULL;
        }
        if (!utf8.hasArray()) {
            byte[] copy = new byte[utf8.remaining()];
            utf8.duplicate().get(copy);
            return id(column, copy, 0, copy.length);
        }
        return id(column, utf8.array(), utf8.arrayOffset() + utf8.position(), utf8.remaining());
    }

    /**
     * The id of these bytes' decoded form ({@link Utf8Keys#decoded} when they are not well-formed): a string of a
     * record's value, as the reference reads it. A repeat of the column's last string is not checked again: what is
     * remembered is in that form, so bytes equal to it are well-formed.
     */
    long idOfDecodedForm(int column, byte[] bytes, int offset, int length) {
        if (isLast(column, bytes, offset, length)) {
            return lastId[column];
        }
        if (!Utf8Keys.wellFormed(bytes, offset, offset + length)) {
            byte[] decoded = Utf8Keys.decoded(bytes, offset, length);
            return id(column, decoded, 0, decoded.length);
        }
        return remember(column, bytes, offset, length);
    }

    private boolean isLast(int column, byte[] bytes, int offset, int length) {
        return lastId[column] >= 0 && Arrays.equals(last[column], 0, lastLength[column], bytes, offset, offset + length);
    }

    private long id(int column, byte[] bytes, int offset, int length) {
        return isLast(column, bytes, offset, length) ? lastId[column] : remember(column, bytes, offset, length);
    }

    private long remember(int column, byte[] bytes, int offset, int length) {
        long id = ids.id(bytes, offset, length);
        if (last[column].length < length) {
            last[column] = new byte[Math.max(length, 2 * last[column].length)];
        }
        System.arraycopy(bytes, offset, last[column], 0, length);
        lastLength[column] = length;
        lastId[column] = id;
        return id;
    }
}
