package dev.baton.worker.internals;

import java.util.concurrent.CompletableFuture;

import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;

/** An {@link AsyncCompletion} reporting through its worker's {@link Completer}. */
record HandedOffCompletion(CompletionRef ref, Completer completer) implements AsyncCompletion {

    @Override
    public CompletableFuture<Void> complete(Object result) {
        return completer.complete(ref, result);
    }

    @Override
    public CompletableFuture<Void> fail(Throwable failure) {
        return completer.fail(ref, failure);
    }

    @Override
    public CompletableFuture<Void> heartbeat(Object details) {
        return completer.heartbeat(ref, details);
    }

    @Override
    public boolean isStopped() {
        return completer.stopped(ref);
    }

    @Override
    public String toString() {
        return "AsyncCompletion[" + ref + "]";
    }
}
