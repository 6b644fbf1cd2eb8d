package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ResponseBuffersTest {

    @Test
    void aResponseGetsABufferOfExactlyItsSizeOverAKeptArray() {
        ResponseBuffers pool = new ResponseBuffers();
        ByteBuffer first = pool.tryAllocate(1000);
        assertThat(first.capacity()).isEqualTo(1000);
        assertThat(first.remaining()).isEqualTo(1000);
        assertThat(first.arrayOffset()).isZero();
        pool.keep(first);
        ByteBuffer again = pool.tryAllocate(900);
        assertThat(again.array()).isSameAs(first.array());
        assertThat(again.capacity()).isEqualTo(900);
        assertThat(again.position()).isZero();
    }

    @Test
    void anArrayTooSmallForTheResponseIsNotUsed() {
        ResponseBuffers pool = new ResponseBuffers();
        ByteBuffer small = pool.tryAllocate(10);
        pool.keep(small);
        ByteBuffer big = pool.tryAllocate(small.array().length + 1);
        assertThat(big.array()).isNotSameAs(small.array());
        assertThat(pool.tryAllocate(10).array()).isSameAs(small.array());
    }

    @Test
    void theSmallestArrayThatFitsIsTaken() {
        ResponseBuffers pool = new ResponseBuffers();
        ByteBuffer a = pool.tryAllocate(300_000);
        ByteBuffer b = pool.tryAllocate(100_000);
        ByteBuffer c = pool.tryAllocate(200_000);
        pool.keep(a);
        pool.keep(b);
        pool.keep(c);
        assertThat(pool.tryAllocate(150_000).array()).isSameAs(c.array());
    }

    @Test
    void anArrayHandedBackTwiceIsKeptOnce() {
        ResponseBuffers pool = new ResponseBuffers();
        ByteBuffer a = pool.tryAllocate(100);
        pool.keep(a);
        pool.keep(a.slice(10, 20)); // a slice of the same response, as a walk's records are
        ByteBuffer first = pool.tryAllocate(100);
        ByteBuffer second = pool.tryAllocate(100);
        assertThat(first.array()).isSameAs(a.array());
        assertThat(second.array()).isNotSameAs(a.array());
    }

    /**
     * Any sequence of allocations and hand-backs (replayable by seed): two buffers in use never share an array, and no more
     * than {@link ResponseBuffers#KEPT} arrays are kept.
     */
    @Test
    void buffersInUseNeverShareAnArray() {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            ResponseBuffers pool = new ResponseBuffers();
            List<ByteBuffer> inUse = new ArrayList<>();
            for (int step = 0; step < 500; step++) {
                if (inUse.isEmpty() || random.nextInt(3) > 0 && inUse.size() < 6) {
                    inUse.add(pool.tryAllocate(1 + random.nextInt(300_000)));
                } else {
                    ByteBuffer done = inUse.remove(random.nextInt(inUse.size()));
                    pool.keep(done);
                    if (random.nextInt(4) == 0) {
                        pool.keep(done); // handed back again: must not be kept twice
                    }
                }
                Set<byte[]> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
                for (ByteBuffer b : inUse) {
                    assertThat(arrays.add(b.array())).as("seed %d step %d: two buffers in use share an array", seed, step).isTrue();
                }
            }
        }
    }

    @Test
    void anEmptyResponseGetsAnEmptyBuffer() {
        ResponseBuffers pool = new ResponseBuffers();
        assertThat(pool.tryAllocate(0).capacity()).isZero();
    }

    @Test
    void neverOutOfMemory() {
        ResponseBuffers pool = new ResponseBuffers();
        assertThat(pool.isOutOfMemory()).isFalse();
        assertThat(pool.availableMemory()).isPositive();
    }
}
