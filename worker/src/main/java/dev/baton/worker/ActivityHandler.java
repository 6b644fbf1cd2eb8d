package dev.baton.worker;

/**
 * Runs one activity type. Return the output bytes to complete; throw to fail:
 * {@link TerminalActivityException} → {@code terminal:} (never retried),
 * {@link RetryableActivityException} or any other exception → {@code retryable:} (retried by policy).
 *
 * <p>Called on a worker pool thread, possibly concurrently for different sites. Long activities
 * should call {@link ActivityContext#heartbeat} now and then and check {@link ActivityContext#isCancelled()};
 * Baton interrupts the thread when it takes the activity away.
 */
@FunctionalInterface
public interface ActivityHandler {

    byte[] handle(ActivityContext ctx, byte[] input) throws Exception;
}
