package dev.baton.dispatcher;

/**
 * The broker did not acknowledge a dispatch within the producer's {@code delivery.timeout.ms}: it may have been written,
 * and then it runs and its outcome reaches the client's {@link UnmatchedResultHandler}. Dispatch the same request again
 * (same site, attempt and run id): if the first reached the streams app, the second joins its run and is given its one
 * outcome; if not, it runs once.
 */
public final class DispatchUnacknowledgedException extends DispatchException {

    public DispatchUnacknowledgedException(String message, String requestId, Throwable cause) {
        super(message, requestId, cause);
    }
}
