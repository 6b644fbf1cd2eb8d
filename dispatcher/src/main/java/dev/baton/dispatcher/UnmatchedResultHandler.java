package dev.baton.dispatcher;

/**
 * Receives results addressed to this client that match no pending future: results of requests a
 * previous incarnation of this {@code clientId} sent before it restarted, of fire-and-forget sends,
 * of futures that timed out, and completions flagged {@code unmatched} (the outbox).
 *
 * <p>Called on the client's result thread: return quickly or hand off. At least once: a client that dies
 * (kill -9) hands its successor again what it handled since its last commit of the results position
 * (at most about 100 ms of results), so a handler that acts on an outcome must tolerate a copy. An
 * exception it throws is logged and the outcome is not handed again (the read position moves on, so one
 * failing handler cannot hold back every caller's outcome): keep what must not be lost before returning.
 */
@FunctionalInterface
public interface UnmatchedResultHandler {

    void handle(ActivityOutcome outcome);

    UnmatchedResultHandler IGNORE = outcome -> { };
}
