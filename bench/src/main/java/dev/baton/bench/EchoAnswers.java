package dev.baton.bench;

import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The answers an echo without a client of Baton's waits for: a future per activity sent alone, and a count for a
 * burst. A burst keeps a count, not a future and a map entry per activity: a million of those alive at once cost the
 * raw echo 7-14% of its burst in G1 pauses, a harness cost Baton's side (70-100k activities per burst) hardly paid.
 */
final class EchoAnswers {
    private final Map<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    /** The burst under way; null between bursts. */
    private volatile BurstCount burst;

    /** Call before sending {@code id}; the future completes when it is {@link #answered}. */
    CompletableFuture<Void> expect(long id) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        pending.put(id, f);
        return f;
    }

    /** Call before sending ids {@code firstId ..< firstId + count}; completes once every one is answered. */
    CompletableFuture<Void> expectBurst(long firstId, long count) {
        BurstCount b = new BurstCount(firstId, count);
        burst = b;
        return b.done.whenComplete((v, e) -> burst = null);
    }

    /** Called by the one thread that reads every answer. */
    void answered(long id) {
        BurstCount b = burst;
        if (b != null && b.covers(id)) {
            b.answer(id);
            return;
        }
        CompletableFuture<Void> f = pending.remove(id);
        if (f != null) {
            f.complete(null);
        }
    }

    /** Touched only by the thread that reads every answer; a bit per id, so a duplicate counts once. */
    private static final class BurstCount {
        final long firstId;
        final int count;
        final BitSet seen;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        int answered;

        BurstCount(long firstId, long count) {
            this.firstId = firstId;
            this.count = Math.toIntExact(count);
            this.seen = new BitSet(this.count);
        }

        boolean covers(long id) {
            return id >= firstId && id < firstId + count;
        }

        void answer(long id) {
            int bit = (int) (id - firstId);
            if (!seen.get(bit)) {
                seen.set(bit);
                if (++answered == count) {
                    done.complete(null);
                }
            }
        }
    }
}
