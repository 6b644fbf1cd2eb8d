package dev.baton.dispatcher.internals;

import dev.baton.dispatcher.ActivityOutcome;

/**
 * The outcomes this client delivered last, by request id, so an identical copy of one is dropped
 * instead of reaching a caller twice. Copies are normal: a request sent again after its answer is
 * answered again (the same outcome), and a streams app running at-least-once re-emits a step's
 * outcomes when it reprocesses the step after a crash. Identical means the same site, attempt,
 * status, reason and output (not the worker or the time). A different outcome for a delivered
 * request id is no copy: it goes on to the unmatched handler. Bounded: the oldest are forgotten
 * first, so a copy arriving after {@link #CAPACITY} newer outcomes reaches the unmatched handler.
 * One result thread uses it; not thread-safe.
 *
 * <p>Each outcome is remembered as two 64-bit hashes (of its request id, and of what makes it
 * identical) in arrays allocated once: a map of objects held ~65,000 request ids, sites and reasons
 * for seconds each at thousands of outcomes a second, which every young collection copied and then
 * promoted (docs/decisions.md, issue 29). What the hashes give up: two request ids with one hash
 * share an entry (the second's outcome is delivered, and a later copy of it reaches the unmatched
 * handler), and a different outcome whose hash equals the first's would be dropped as a copy, at
 * odds of 2^-64 for an outcome that is itself a broken invariant.
 */
final class DeliveredOutcomes {

    static final int CAPACITY = 65_536;
    /** Open addressing at half load, so a probe ends within a few slots. */
    private static final int SLOTS = CAPACITY * 2;
    private static final int MASK = SLOTS - 1;
    /** Marks an empty slot; a hash that comes out as 0 is stored as 1. */
    private static final long EMPTY = 0L;

    private final long[] ids = new long[SLOTS];
    private final long[] identities = new long[SLOTS];
    /** The ids in the order they were delivered, oldest at {@link #next} once full. */
    private final long[] order = new long[CAPACITY];
    private int next;
    private int size;

    /** Whether {@code outcome} copies one delivered already for its request id; records it otherwise (the first of its id). */
    boolean isCopy(ActivityOutcome outcome) {
        long id = idOf(outcome.requestId());
        long identity = identityOf(outcome);
        int slot = slotOf(id);
        if (ids[slot] == id) {
            return identities[slot] == identity;
        }
        if (size == CAPACITY) {
            remove(order[next]);
            size--;
            slot = slotOf(id); // the removal may have moved the end of this id's probe
        }
        ids[slot] = id;
        identities[slot] = identity;
        order[next] = id;
        next = (next + 1) % CAPACITY;
        size++;
        return false;
    }

    /** The slot holding {@code id}, or the empty slot where its probe ends. */
    private int slotOf(long id) {
        int slot = home(id);
        while (ids[slot] != EMPTY && ids[slot] != id) {
            slot = (slot + 1) & MASK;
        }
        return slot;
    }

    /** Deletes {@code id} and shifts back the entries after it whose probe passed its slot (linear probing needs no tombstones). */
    private void remove(long id) {
        int hole = slotOf(id);
        if (ids[hole] != id) {
            return;
        }
        int slot = hole;
        while (true) {
            slot = (slot + 1) & MASK;
            long moved = ids[slot];
            if (moved == EMPTY) {
                break;
            }
            int home = home(moved);
            boolean homeAfterHole = hole <= slot ? hole < home && home <= slot : hole < home || home <= slot;
            if (!homeAfterHole) {
                ids[hole] = moved;
                identities[hole] = identities[slot];
                hole = slot;
            }
        }
        ids[hole] = EMPTY;
        identities[hole] = 0L;
    }

    private static int home(long id) {
        return (int) (id ^ (id >>> 32)) & MASK;
    }

    static long idOf(String requestId) {
        long h = Hash.of(requestId, Hash.SEED);
        return h == EMPTY ? 1L : h;
    }

    static long identityOf(ActivityOutcome o) {
        long h = Hash.of(o.site().asKey(), Hash.SEED);
        h = Hash.mix(h ^ o.attempt());
        h = Hash.mix(h ^ (o.completed() ? 1 : 2));
        h = Hash.of(o.reason(), h);
        return Hash.of(o.output(), h);
    }

    /** A 64-bit hash, FNV-1a over the input with splitmix64's finalizer; each part is length-prefixed, so "ab","c" != "a","bc". */
    private static final class Hash {
        static final long SEED = 0xcbf29ce484222325L;
        private static final long PRIME = 0x100000001b3L;

        static long of(String s, long h) {
            if (s == null) {
                return mix(h ^ 0x9e3779b97f4a7c15L);
            }
            h = mix(h ^ s.length());
            for (int i = 0; i < s.length(); i++) {
                h = (h ^ s.charAt(i)) * PRIME;
            }
            return mix(h);
        }

        static long of(byte[] b, long h) {
            if (b == null) {
                return mix(h ^ 0x9e3779b97f4a7c15L);
            }
            h = mix(h ^ b.length);
            for (byte x : b) {
                h = (h ^ (x & 0xff)) * PRIME;
            }
            return mix(h);
        }

        static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }
    }
}
