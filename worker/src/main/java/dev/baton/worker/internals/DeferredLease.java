package dev.baton.worker.internals;

import java.util.concurrent.CompletableFuture;

/**
 * A plain lease that waits: the {@code LEASED} event of a run is sent only if the run outlives the
 * deferral (see {@link PlainLeases}); a report sent before that (a completion, a failure, a
 * heartbeat, a park) leases the generation by itself, since the streams app takes the first report
 * of a generation as its lease. A short activity then costs no lease event, no lease history event
 * and no row write for it.
 *
 * <p>Whichever is sent first settles it. Both sends happen while holding this object's lock, so the
 * one that settles it is also the first on the producer: a deferred {@code LEASED} never follows the
 * completion it was meant to precede. {@link #proven()} completes when the broker acknowledged the
 * settling record: then the task's offset may be committed.
 */
final class DeferredLease {

    private final CompletableFuture<Void> proven = new CompletableFuture<>();
    private boolean settled;

    /** True the first time only: the caller's record, sent under this lock, is the lease. */
    boolean settle() {
        assert Thread.holdsLock(this);
        if (settled) {
            return false;
        }
        settled = true;
        return true;
    }

    /** Completes when the record that settled the lease was acknowledged; fails with its send's error. */
    CompletableFuture<Void> proven() {
        return proven;
    }

    /** The settling record's send finished. */
    void acknowledged(Exception error) {
        if (error == null) {
            proven.complete(null);
        } else {
            proven.completeExceptionally(error);
        }
    }
}
