package dev.baton.morsel.operator;

/**
 * A join build's table for keys dense in a range: the payload of key {@code k} at {@code k - min}, no hashing and no
 * probing (a table for {@link PartitionedHashJoinBuild}'s merge, or the one {@link DenseJoinBuild} writes as it reads). Made only when the range is at most {@link #RANGE_PER_ROW} times the rows, where it takes no more memory
 * than the hash tables it replaces (two longs a slot, at two to four slots a row).
 *
 * <p>Thread contract: {@link #put} from several threads at once only for keys that differ (each writes its own slot);
 * {@link #get} after a barrier that follows every put. A payload must not be {@link HashJoinProbe#MISSING}.
 */
final class DenseJoinTable {

    static final long RANGE_PER_ROW = 4;

    private final long min;
    /** {@code payload ^ MISSING}, so that the zeroes of a new array mean "no key" without a fill. */
    private final long[] slots;

    private DenseJoinTable(long min, int range) {
        this.min = min;
        this.slots = new long[range];
    }

    /** A table for keys in {@code [min, max]}, or {@code null} when {@code rows} keys would fill it too sparsely. */
    static DenseJoinTable forRange(long min, long max, long rows) {
        if (rows < 1 || max < min) {
            return null;
        }
        long range = max - min + 1; // overflows to <= 0 for ranges past Long.MAX_VALUE
        if (range <= 0 || range > RANGE_PER_ROW * rows || range > Integer.MAX_VALUE - 8) {
            return null;
        }
        return new DenseJoinTable(min, (int) range);
    }

    /** Puts {@code payload} for {@code key}; returns whether the key was new. Throws when the key lies outside the range. */
    boolean put(long key, long payload) {
        long at = key - min;
        if (Long.compareUnsigned(at, slots.length) >= 0) { // one compare for both ends (a key below min wraps to a huge index)
            throw new IllegalArgumentException("join key " + key + " lies outside the dense table's range [" + min + ", "
                    + (min + slots.length - 1) + "]");
        }
        int i = (int) at;
        boolean fresh = slots[i] == 0;
        slots[i] = payload ^ HashJoinProbe.MISSING;
        return fresh;
    }

    long get(long key, long missing) {
        long i = key - min;
        if (i < 0 || i >= slots.length) {
            return missing;
        }
        long v = slots[(int) i];
        return v == 0 ? missing : v ^ HashJoinProbe.MISSING;
    }
}
