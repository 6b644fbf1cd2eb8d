package dev.baton.worker;

import dev.baton.schemas.payload.EncodedPayload;

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

    /**
     * What the worker calls: the input with its content type, the output with its own. This default
     * hands the bytes to {@link #handle} and labels its output {@code application/octet-stream};
     * typed handlers ({@link TypedActivityHandler}) override it to read and write their content types.
     */
    default EncodedPayload handlePayload(ActivityContext ctx, EncodedPayload input) throws Exception {
        return EncodedPayload.octetStream(handle(ctx, input.data()));
    }
}
