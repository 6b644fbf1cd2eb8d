package dev.baton.morsel.history;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Joins a future and rethrows what failed it as itself, so callers see the scan's own error, not a wrapper. */
final class Futures {

    private Futures() {
    }

    static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
