package dev.baton.dispatcher;

import dev.baton.schemas.SiteKey;
import dev.baton.schemas.failure.ActivityFailure;

/**
 * The activity's outcome was a failure: how a typed dispatch
 * ({@link DispatchClient#dispatch(ActivityRequest, Class)}) fails its future. Carries the whole
 * {@link ActivityOutcome}; {@link #reasonPrefix()} is the contract ({@code retryable:}, {@code terminal:},
 * {@code cancelled:}, ...), the rest of the reason is for people. {@link #failure()} says what the
 * worker threw (type, message, details, stack, causes):
 *
 * <pre>{@code
 * client.dispatch(request, Receipt.class).exceptionally(e -> {
 *     if (e.getCause() instanceof ActivityFailedException f && f.failure().type().equals("CardDeclined")) {
 *         Decline d = f.failure().detailsAs(Decline.class, PayloadConverters.defaults());
 *     }
 *     ...
 * });
 * }</pre>
 */
public class ActivityFailedException extends DispatchException {

    private final transient ActivityOutcome outcome;

    public ActivityFailedException(ActivityOutcome outcome) {
        super("activity at site " + outcome.site() + " attempt " + outcome.attempt() + " failed: " + outcome.reason()
                + (outcome.failure() == null ? "" : " [" + outcome.failure() + "]"), outcome.requestId());
        this.outcome = outcome;
    }

    public ActivityOutcome outcome() {
        return outcome;
    }

    public SiteKey site() {
        return outcome.site();
    }

    /**
     * What failed: the worker's structured failure, or, for a failure Baton decided (timeout, cancel,
     * takeover, ...), one typed by the reason's prefix ({@code "cancelled"}) with the reason as message.
     */
    public ActivityFailure failure() {
        return outcome.failureOrReason().orElseThrow();
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
