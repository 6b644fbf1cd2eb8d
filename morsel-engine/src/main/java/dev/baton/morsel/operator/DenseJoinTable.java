package dev.baton.morsel.operator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A join build's table for keys dense in a range: the payload of key {@code k} at {@code k - min}, no hashing and no
 * probing (a table for {@link PartitionedHashJoinBuild}'s merge, or the one {@link DenseJoinBuild} writes as it reads).
 * Made only when the range is at most {@link #RANGE_PER_ROW} times the rows, where it takes no more memory than the hash
 * tables it replaces (two longs a slot, at two to four slots a row).
 *
 * <p>Thread contract: {@link #put} from several threads at once only for keys that differ (each writes its own slot);
 * {@link #get} after a barrier that follows every put. A payload must not be {@link HashJoinProbe#MISSING}.
 */
final class DenseJoinTable {

    static final long RANGE_PER_ROW = 4;
    /** Slots per chunk: 64 KiB, one 64 KiB page's worth of TPC-H part keys, and far below a G1 region. */
    static final int CHUNK_BITS = 13;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final VarHandle CHUNKS = MethodHandles.arrayElementVarHandle(long[][].class);

    private final long min;
    private final int range;
    /**
     * The slots in chunks, each made by the first put into it. Why not one array made up front: the JVM zeroes an array
     * as it allocates it, so a table of megabytes made up front is serial time on the caller before any worker starts
     * (docs/decisions.md, "Q14's build straight into one dense table"); in chunks the workers zero them in parallel, each
     * where it writes. A slot holds
     * {@code payload ^ MISSING}, so a zero means "no key" without a fill.
     */
    private final long[][] chunks;

    private DenseJoinTable(long min, int range) {
        this.min = min;
        this.range = range;
        this.chunks = new long[(range + CHUNK - 1) >>> CHUNK_BITS][];
    }

    /** A table for keys in {@code [min, max]}, or {@code null} when {@code rows} keys would fill it too sparsely. */
    static DenseJoinTable forRange(long min, long max, long rows) {
        if (rows < 1 || max < min) {
            return null;
        }
        long range = max - min + 1; // overflows to <= 0 for ranges past Long.MAX_VALUE
        if (range <= 0 || range > RANGE_PER_ROW * rows || range > Integer.MAX_VALUE - CHUNK) {
            return null;
        }
        return new DenseJoinTable(min, (int) range);
    }

    /** Puts {@code payload} for {@code key}; returns whether the key was new. Throws when the key lies outside the range. */
    boolean put(long key, long payload) {
        long at = key - min;
        if (Long.compareUnsigned(at, range) >= 0) { // one compare for both ends (a key below min wraps to a huge index)
            throw new IllegalArgumentException("join key " + key + " lies outside the dense table's range [" + min + ", "
                    + (min + range - 1) + "]");
        }
        int i = (int) at;
        long[] c = chunks[i >>> CHUNK_BITS];
        if (c == null) {
            c = chunk(i >>> CHUNK_BITS);
        }
        int s = i & (CHUNK - 1);
        boolean fresh = c[s] == 0;
        c[s] = payload ^ HashJoinProbe.MISSING;
        return fresh;
    }

    /** Chunk {@code index}, made now unless another thread made it first (then that one: each thread's slots land in it). */
    private long[] chunk(int index) {
        long[] made = new long[Math.min(CHUNK, range - (index << CHUNK_BITS))];
        long[] first = (long[]) CHUNKS.compareAndExchange(chunks, index, (long[]) null, made);
        return first == null ? made : first;
    }

    long get(long key, long missing) {
        long at = key - min;
        if (Long.compareUnsigned(at, range) >= 0) {
            return missing;
        }
        long[] c = chunks[(int) (at >>> CHUNK_BITS)];
        long v = c == null ? 0 : c[(int) at & (CHUNK - 1)];
        return v == 0 ? missing : v ^ HashJoinProbe.MISSING;
    }
}
