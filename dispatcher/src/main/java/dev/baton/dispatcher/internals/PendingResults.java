package dev.baton.dispatcher.internals;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.PendingLimitExceededException;

/**
 * Futures waiting for outcomes, by request id. Bounded: a client cannot grow it without limit. Once
 * {@linkplain #close closed} it holds no future: each waiting one has failed and later registrations
 * are refused, so no caller is left waiting for an outcome nobody will deliver. Thread-safe.
 *
 * <p>A request id made by {@link RequestIds} waits in a ring slot picked by its counter; any other id,
 * and one whose slot is still held by an older request (the counter lapped it: a request may wait for
 * hours), waits in a map beside the ring. Outcomes arrive about in dispatch order, so the sending and
 * the results threads walk the ring in order; a map of ~100,000 ids was touched at random, and its
 * misses were most of the results thread's work (docs/decisions.md, issue 29). A slot matches an id
 * only when both of the id's halves equal the waiting one's, which for ids of that strict form is
 * the same as the strings being equal.
 */
public final class PendingResults {

    /** The ring's most slots (4 MiB of references); a larger {@code max.pending} waits in the map beyond it. */
    private static final int MOST_SLOTS = 1 << 20;

    private final AtomicReferenceArray<Waiting> ring;
    private final int mask;
    private final Map<String, Waiting> lapped = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final int max;
    private volatile Function<String, ? extends RuntimeException> refusal;

    /** One waiting future; {@code low} is 0 for an id not made by {@link RequestIds}, which never enters the ring. */
    private static final class Waiting {
        final String requestId;
        final long high;
        final long low;
        final CompletableFuture<ActivityOutcome> future = new CompletableFuture<>();

        Waiting(String requestId) {
            this.requestId = requestId;
            long h = RequestIds.highOf(requestId);
            this.high = h;
            this.low = h == 0 ? 0L : RequestIds.lowOf(requestId);
        }
    }

    public PendingResults(int max) {
        this.max = max;
        int slots = Integer.highestOneBit(Math.max(1, Math.min(max, MOST_SLOTS) - 1)) << 1;
        this.ring = new AtomicReferenceArray<>(slots);
        this.mask = slots - 1;
    }

    /** A future for the request's outcome; throws the close cause for this request id once closed. */
    public CompletableFuture<ActivityOutcome> register(String requestId) {
        if (waiting.incrementAndGet() > max) {
            int now = waiting.decrementAndGet();
            throw new PendingLimitExceededException("max.pending is " + max + " and " + now
                    + " dispatches are waiting; retry when some resolve or raise max.pending");
        }
        Waiting w = new Waiting(requestId);
        if (w.low == 0 || !ring.compareAndSet(slot(w.low), null, w)) {
            lapped.put(requestId, w);
        }
        w.future.whenComplete((o, e) -> forget(w));
        // Checked after the put: a close running meanwhile may miss this future, but then this check sees
        // the close (each side writes before it reads the other's state), so the future fails here.
        Function<String, ? extends RuntimeException> closedWith = refusal;
        if (closedWith != null) {
            RuntimeException refused = closedWith.apply(requestId);
            fail(requestId, refused);
            throw refused;
        }
        return w.future;
    }

    /** Completes the waiting future; false if none waits for this request id. */
    public boolean complete(String requestId, ActivityOutcome outcome) {
        Waiting w = take(requestId);
        return w != null && w.future.complete(outcome);
    }

    public void fail(String requestId, Throwable cause) {
        Waiting w = take(requestId);
        if (w != null) {
            w.future.completeExceptionally(cause);
        }
    }

    /** Fails every waiting future with the exception made for its request id. */
    public int failAll(Function<String, Throwable> cause) {
        int n = 0;
        for (int i = 0; i < ring.length(); i++) {
            Waiting w = ring.get(i);
            if (w != null && ring.compareAndSet(i, w, null)) {
                waiting.decrementAndGet();
                n += w.future.completeExceptionally(cause.apply(w.requestId)) ? 1 : 0;
            }
        }
        for (Waiting w : lapped.values()) {
            if (lapped.remove(w.requestId, w)) {
                waiting.decrementAndGet();
                n += w.future.completeExceptionally(cause.apply(w.requestId)) ? 1 : 0;
            }
        }
        return n;
    }

    /**
     * Fails every waiting future with the exception made for its request id and refuses every later
     * {@link #register} with it. Only the first close counts; returns how many futures it failed.
     */
    public synchronized int close(Function<String, ? extends RuntimeException> cause) {
        if (refusal != null) {
            return 0;
        }
        refusal = cause;
        return failAll(cause::apply);
    }

    public int size() {
        return waiting.get();
    }

    /** Removes and returns what waits for {@code requestId}, or null; whoever removes it counts it out. */
    private Waiting take(String requestId) {
        long low = RequestIds.lowOf(requestId);
        if (low != 0) {
            int slot = slot(low);
            Waiting w = ring.get(slot);
            if (w != null && w.low == low && w.high == RequestIds.highOf(requestId)) {
                if (ring.compareAndSet(slot, w, null)) {
                    waiting.decrementAndGet();
                    return w;
                }
                return null; // another thread took it first
            }
        }
        if (lapped.isEmpty()) {
            return null;
        }
        Waiting w = lapped.remove(requestId);
        if (w != null) {
            waiting.decrementAndGet();
        }
        return w;
    }

    /** Drops a future its holder completed (a timeout, a cancel) unless it was taken already. */
    private void forget(Waiting w) {
        if (w.low != 0 && ring.compareAndSet(slot(w.low), w, null) || lapped.remove(w.requestId, w)) {
            waiting.decrementAndGet();
        }
    }

    private int slot(long low) {
        return (int) low & mask;
    }
}
