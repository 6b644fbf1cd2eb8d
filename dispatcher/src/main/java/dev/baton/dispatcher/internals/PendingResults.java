package dev.baton.dispatcher.internals;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.PendingLimitExceededException;

/**
 * Futures waiting for outcomes, by request id. Bounded: a client cannot grow it without limit. Once
 * {@linkplain #close closed} it holds no future: each waiting one has failed and later registrations
 * are refused, so no caller is left waiting for an outcome nobody will deliver.
 */
public final class PendingResults {

    private final Map<String, CompletableFuture<ActivityOutcome>> byRequestId = new ConcurrentHashMap<>();
    private final int max;
    private volatile Function<String, ? extends RuntimeException> refusal;

    public PendingResults(int max) {
        this.max = max;
    }

    /** A future for the request's outcome; throws the close cause for this request id once closed. */
    public CompletableFuture<ActivityOutcome> register(String requestId) {
        if (byRequestId.size() >= max) {
            throw new PendingLimitExceededException("max.pending is " + max + " and " + byRequestId.size()
                    + " dispatches are waiting; retry when some resolve or raise max.pending");
        }
        CompletableFuture<ActivityOutcome> future = new CompletableFuture<>();
        byRequestId.put(requestId, future);
        future.whenComplete((o, e) -> byRequestId.remove(requestId, future));
        // Checked after the put: a close running meanwhile may miss this future, but then this check sees
        // the close (each side writes before it reads the other's state), so the future fails here.
        Function<String, ? extends RuntimeException> closedWith = refusal;
        if (closedWith != null) {
            RuntimeException refused = closedWith.apply(requestId);
            fail(requestId, refused);
            throw refused;
        }
        return future;
    }

    /** Completes the waiting future; false if none waits for this request id. */
    public boolean complete(String requestId, ActivityOutcome outcome) {
        CompletableFuture<ActivityOutcome> future = byRequestId.remove(requestId);
        return future != null && future.complete(outcome);
    }

    public void fail(String requestId, Throwable cause) {
        CompletableFuture<ActivityOutcome> future = byRequestId.remove(requestId);
        if (future != null) {
            future.completeExceptionally(cause);
        }
    }

    /** Fails every waiting future with the exception made for its request id. */
    public int failAll(Function<String, Throwable> cause) {
        int n = 0;
        for (String id : Map.copyOf(byRequestId).keySet()) {
            CompletableFuture<ActivityOutcome> future = byRequestId.remove(id);
            if (future != null && future.completeExceptionally(cause.apply(id))) {
                n++;
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
        return byRequestId.size();
    }
}
