package dev.baton.dispatcher.internals;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.baton.dispatcher.Outcome;
import dev.baton.dispatcher.PendingLimitExceededException;

/** Futures waiting for outcomes, by request id. Bounded: a client cannot grow it without limit. */
public final class PendingResults {

    private final Map<String, CompletableFuture<Outcome>> byRequestId = new ConcurrentHashMap<>();
    private final int max;

    public PendingResults(int max) {
        this.max = max;
    }

    public CompletableFuture<Outcome> register(String requestId) {
        if (byRequestId.size() >= max) {
            throw new PendingLimitExceededException("max.pending is " + max + " and " + byRequestId.size()
                    + " dispatches are waiting; retry when some resolve or raise max.pending");
        }
        CompletableFuture<Outcome> future = new CompletableFuture<>();
        byRequestId.put(requestId, future);
        future.whenComplete((o, e) -> byRequestId.remove(requestId, future));
        return future;
    }

    /** Completes the waiting future; false if none waits for this request id. */
    public boolean complete(String requestId, Outcome outcome) {
        CompletableFuture<Outcome> future = byRequestId.remove(requestId);
        return future != null && future.complete(outcome);
    }

    public void fail(String requestId, Throwable cause) {
        CompletableFuture<Outcome> future = byRequestId.remove(requestId);
        if (future != null) {
            future.completeExceptionally(cause);
        }
    }

    /** Fails every waiting future with the exception made for its request id. */
    public int failAll(Function<String, Throwable> cause) {
        int n = 0;
        for (String id : Map.copyOf(byRequestId).keySet()) {
            CompletableFuture<Outcome> future = byRequestId.remove(id);
            if (future != null && future.completeExceptionally(cause.apply(id))) {
                n++;
            }
        }
        return n;
    }

    public int size() {
        return byRequestId.size();
    }
}
