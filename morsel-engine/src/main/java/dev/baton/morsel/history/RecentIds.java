package dev.baton.morsel.history;

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
        return s == null ? StringIds.NULL : id(column, s.getBytes(), s.getByteLength(), s);
    }

    /** The id of the string these UTF-8 bytes spell (a record key; the array is not kept). */
    long id(int column, byte[] utf8) {
        return utf8 == null ? StringIds.NULL : id(column, utf8, utf8.length, null);
    }

    private long id(int column, byte[] bytes, int length, Utf8 s) {
        if (lastId[column] >= 0 && Arrays.equals(last[column], 0, lastLength[column], bytes, 0, length)) {
            return lastId[column];
        }
        long id = s != null ? ids.id(s) : ids.id(bytes); // without a buffer, bytes is the whole key
        if (last[column].length < length) {
            last[column] = new byte[Math.max(length, 2 * last[column].length)];
        }
        System.arraycopy(bytes, 0, last[column], 0, length);
        lastLength[column] = length;
        lastId[column] = id;
        return id;
    }
}
