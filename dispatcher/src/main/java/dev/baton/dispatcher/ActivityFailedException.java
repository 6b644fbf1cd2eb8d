package dev.baton.dispatcher;

import dev.baton.schemas.SiteKey;

/**
 * The activity's outcome was a failure: how a typed dispatch
 * ({@link DispatchClient#dispatch(ActivityRequest, Class)}) fails its future. Carries the whole
 * {@link Outcome}; {@link #reasonPrefix()} is the contract ({@code retryable:}, {@code terminal:},
 * {@code cancelled:}, ...), the rest of the reason is for people.
 */
public class ActivityFailedException extends DispatchException {

    private final transient Outcome outcome;

    public ActivityFailedException(Outcome outcome) {
        super("activity at site " + outcome.site() + " attempt " + outcome.attempt() + " failed: " + outcome.reason(), outcome.requestId());
        this.outcome = outcome;
    }

    public Outcome outcome() {
        return outcome;
    }

    public SiteKey site() {
        return outcome.site();
    }

    /** The failure's reason with its vocabulary prefix. */
    public String reason() {
        return outcome.reason();
    }

    /** The vocabulary prefix of the reason ({@code "terminal:"}, ...), empty if it has none. */
    public String reasonPrefix() {
        return outcome.reasonPrefix();
    }
}
