package dev.baton.worker;

/** The activity failed and may be retried by policy: reported as {@code retryable: <message>}. */
public class RetryableActivityException extends ActivityException {
    public RetryableActivityException(String message) {
        super(null, message, null, null);
    }

    public RetryableActivityException(String message, Throwable cause) {
        super(null, message, null, cause);
    }

    /** With the failure's type and details for the caller (see {@link ActivityException}). */
    public RetryableActivityException(String type, String message, Object details) {
        super(type, message, details, null);
    }

    public RetryableActivityException(String type, String message, Object details, Throwable cause) {
        super(type, message, details, cause);
    }
}
