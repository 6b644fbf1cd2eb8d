package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;

import org.apache.kafka.common.memory.MemoryPool;

/**
 * The buffers one {@link FetchReader}'s network client reads fetch responses into, handed back by the reader once it has
 * walked a response ({@link #keep}) and read into again. Kafka's clients allocate a fresh array per response
 * ({@link MemoryPool#NONE}): a scan of 10 million history records allocated 1.6 GB that way, about half of all it
 * allocated, and every one of those bytes was zeroed by the JVM, then written by the socket read, then read by the walk.
 * Read again into a kept array, the response lands in memory the cache and the page tables already hold (docs/decisions.md,
 * "Fetch responses read into kept buffers").
 *
 * <p>Only arrays the reader says it is done with are read into again; a response the reader never walked (an error, a
 * fetch ahead that was not wanted) is left to the collector as before. What is kept is bounded: {@link #KEPT} arrays,
 * each the size of a response.
 *
 * <p>Not thread-safe: the reader's network client allocates on the reader's thread, where the reader hands back.
 */
final class ResponseBuffers implements MemoryPool {

    /** Arrays kept: the response being walked, the one fetched ahead, and one spare for a partition switch. */
    static final int KEPT = 3;
    /** A new array is rounded up to this, so a response a little longer than the last still fits a kept one. */
    private static final int GRAIN = 64 * 1024;

    private final byte[][] kept = new byte[KEPT][];

    @Override
    public ByteBuffer tryAllocate(int size) {
        int best = -1;
        for (int i = 0; i < KEPT; i++) {
            if (kept[i] != null && kept[i].length >= size && (best < 0 || kept[i].length < kept[best].length)) {
                best = i;
            }
        }
        if (best < 0) {
            int capacity = size > Integer.MAX_VALUE - 8 - GRAIN ? size : (size + GRAIN - 1) / GRAIN * GRAIN;
            return ByteBuffer.wrap(new byte[capacity], 0, size).slice();
        }
        byte[] array = kept[best];
        kept[best] = null;
        return ByteBuffer.wrap(array, 0, size).slice();
    }

    /** Kafka hands back a response it read only in part (its connection closed): nothing else holds it. */
    @Override
    public void release(ByteBuffer previouslyAllocated) {
        keep(previouslyAllocated);
    }

    /**
     * Takes back the array under {@code buffer} (a response's, or a slice of one) to read a later response into: the
     * caller holds no view of it any more. An array already kept is not kept twice (two responses would share it); when
     * all places are taken the smallest array goes.
     */
    void keep(ByteBuffer buffer) {
        if (buffer == null || !buffer.hasArray() || buffer.isReadOnly()) {
            return;
        }
        byte[] array = buffer.array();
        int place = -1;
        for (int i = 0; i < KEPT; i++) {
            if (kept[i] == array) {
                return;
            }
            if (place < 0 || kept[place] != null && (kept[i] == null || kept[i].length < kept[place].length)) {
                place = i; // an empty place, else the smallest array
            }
        }
        if (kept[place] == null || kept[place].length < array.length) {
            kept[place] = array;
        }
    }

    @Override
    public long size() {
        return Long.MAX_VALUE;
    }

    @Override
    public long availableMemory() {
        return Long.MAX_VALUE;
    }

    @Override
    public boolean isOutOfMemory() {
        return false;
    }
}
