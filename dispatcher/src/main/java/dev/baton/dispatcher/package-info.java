/**
 * How services ask Baton to run activities: {@link dev.baton.dispatcher.DispatchClient} sends an
 * {@link dev.baton.dispatcher.ActivityRequest} and completes a future with the {@link dev.baton.dispatcher.ActivityOutcome};
 * results no future waits for go to an {@link dev.baton.dispatcher.UnmatchedResultHandler}. A typed dispatch completes
 * with the output read by the converter of its content type, or fails with
 * {@link dev.baton.dispatcher.ActivityFailedException} carrying the failure's reason. Everything in
 * {@code internals} may change without notice.
 */
package dev.baton.dispatcher;
