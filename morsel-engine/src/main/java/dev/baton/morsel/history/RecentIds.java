package dev.baton.morsel.history;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.apache.avro.util.Utf8;

/**
 * One scanning thread's memory of the last few strings it looked up per column, in front of the shared
 * {@link StringIds}: a site's events sit together in its partition, so a record mostly repeats the
 * previous one's namespace and queue, and the few activity types alternate; comparing bytes with a few
 * remembered ones costs less than the dictionary's hash lookup and lock. Answers exactly what
 * {@link StringIds} answers.
 *
 * <p>Not thread-safe: one per scanning thread.
 */
final class RecentIds {

    /** Strings remembered per column: a column of a handful of values (queues, types) is then all hits. */
    private static final int WAYS = 4;

    private final StringIds ids;
    /** Per column, {@link #WAYS} entries: column {@code c}'s are {@code c * WAYS} on. */
    private final byte[][] last;
    private final int[] lastLength;
    private final long[] lastId;
    /** Per column, the entry written last: looked at first, and the next miss replaces the one after it. */
    private final int[] newest;

    RecentIds(StringIds ids, int columns) {
        this.ids = ids;
        this.last = new byte[columns * WAYS][0];
        this.lastLength = new int[columns * WAYS];
        this.lastId = new long[columns * WAYS];
        this.newest = new int[columns];
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
     * record's value, as the reference reads it. A string the column remembers is not checked again: what is
     * remembered is in that form, so bytes equal to it are well-formed.
     */
    long idOfDecodedForm(int column, byte[] bytes, int offset, int length) {
        long known = recalled(column, bytes, offset, length);
        if (known >= 0) {
            return known;
        }
        if (!Utf8Keys.wellFormed(bytes, offset, offset + length)) {
            byte[] decoded = Utf8Keys.decoded(bytes, offset, length);
            return id(column, decoded, 0, decoded.length);
        }
        return remember(column, bytes, offset, length);
    }

    /** The remembered id of these bytes in column {@code column}, or -1. */
    private long recalled(int column, byte[] bytes, int offset, int length) {
        int base = column * WAYS;
        for (int i = 0, w = newest[column]; i < WAYS; i++, w = (w + WAYS - 1) % WAYS) {
            int e = base + w;
            if (lastId[e] >= 0 && Arrays.equals(last[e], 0, lastLength[e], bytes, offset, offset + length)) {
                return lastId[e];
            }
        }
        return -1;
    }

    private long id(int column, byte[] bytes, int offset, int length) {
        long known = recalled(column, bytes, offset, length);
        return known >= 0 ? known : remember(column, bytes, offset, length);
    }

    private long remember(int column, byte[] bytes, int offset, int length) {
        long id = ids.id(bytes, offset, length);
        int w = (newest[column] + 1) % WAYS;
        int e = column * WAYS + w;
        if (last[e].length < length) {
            last[e] = new byte[Math.max(length, 2 * last[e].length)];
        }
        System.arraycopy(bytes, offset, last[e], 0, length);
        lastLength[e] = length;
        lastId[e] = id;
        newest[column] = w;
        return id;
    }
}
