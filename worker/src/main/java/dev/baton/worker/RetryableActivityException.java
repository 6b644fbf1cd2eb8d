package dev.baton.worker;

/** The activity failed and may be retried by policy: reported as {@code retryable: <message>}. */
public class RetryableActivityException extends Exception {
    public RetryableActivityException(String message) {
        super(message);
    }

    public RetryableActivityException(String message, Throwable cause) {
        super(message, cause);
    }
}
