package dev.baton.worker;

/**
 * The base of the exceptions a handler throws to say how it failed: {@link RetryableActivityException}
 * ({@code retryable:}) or {@link TerminalActivityException} ({@code terminal:}). Either may name the
 * failure's type and carry details, which reach the caller in its {@code ActivityFailure} (the
 * details encoded by the worker's payload converters):
 *
 * <pre>{@code
 * throw new TerminalActivityException("CardDeclined", "card declined", new Decline(code));
 * }</pre>
 *
 * Without a type, the failure's type is the exception's class name.
 */
public class ActivityException extends Exception {

    private final String type;
    private final transient Object details;

    protected ActivityException(String type, String message, Object details, Throwable cause) {
        super(message, cause);
        this.type = type;
        this.details = details;
    }

    /** The failure's type, or null to use the exception's class name. */
    public String type() {
        return type;
    }

    /** Application details for the caller, or null. */
    public Object details() {
        return details;
    }
}
