package dev.baton.worker.internals;

import dev.baton.schemas.Reasons;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConversionException;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.PayloadLimits;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.worker.ActivityException;
import dev.baton.worker.TerminalActivityException;

/** How a handler's exception is reported: its reason (the contract) and its structured failure. */
public final class Failures {

    /** The streams app's bound on a report's reason ({@link ReportLimits}). */
    static final int MAX_REASON_CHARS = ReportLimits.MAX_REASON_CHARS;

    private Failures() {
    }

    /**
     * {@link TerminalActivityException} is {@code terminal:}; anything else is {@code retryable:}. Cut
     * to the streams app's bound on reasons, which dead-letters a longer one (its caller would wait).
     */
    public static String reason(Throwable thrown) {
        String reason;
        if (thrown instanceof TerminalActivityException) {
            reason = Reasons.TERMINAL + " " + message(thrown);
        } else if (thrown instanceof ActivityException) {
            reason = Reasons.RETRYABLE + " " + message(thrown);
        } else {
            reason = Reasons.RETRYABLE + " " + thrown.getClass().getSimpleName() + ": " + message(thrown);
        }
        return reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS - 3) + "...";
    }

    /** The exception's message, or why there is none: a report must go out whatever its exception does (a throwing getMessage, say). */
    private static String message(Throwable thrown) {
        try {
            return thrown.getMessage();
        } catch (Throwable e) { // an Error too (h/adv22w): escaping here, it left the run unreported
            return "(its message could not be read: " + e.getClass().getName() + ")";
        }
    }

    /**
     * The failure a caller sees: the type and details an {@link ActivityException} names (details
     * encoded by {@code converters}), else the class name; stack and causes always. Details that
     * cannot be encoded are left out and said so in the message, rather than losing the failure.
     */
    public static ActivityFailure failure(Throwable thrown, PayloadConverters converters) {
        try {
            return describe(thrown, converters);
        } catch (Throwable e) { // a failure must be reported whatever its exception does (a throwing getMessage, say; an Error too)
            // The class name only: e may be the hostile exception itself, whose toString() reads its message again.
            return ActivityFailure.of(thrown.getClass().getName(), "failure could not be described: " + e.getClass().getName());
        }
    }

    private static ActivityFailure describe(Throwable thrown, PayloadConverters converters) {
        String type = thrown.getClass().getName();
        EncodedPayload details = null;
        String unencodable = null;
        if (thrown instanceof ActivityException a) {
            type = a.type() == null || a.type().isBlank() ? type : a.type();
            if (a.details() != null) {
                try {
                    details = converters.encode(a.details());
                    if (details.data().length > PayloadLimits.MAX_FAILURE_DETAILS_BYTES) {
                        unencodable = "details must be <= " + PayloadLimits.MAX_FAILURE_DETAILS_BYTES + " bytes, were " + details.data().length;
                        details = null;
                    }
                } catch (PayloadConversionException e) {
                    unencodable = e.getMessage();
                }
            }
        }
        ActivityFailure f = ActivityFailure.from(thrown, type, details);
        return unencodable == null ? f
                : new ActivityFailure(f.type(), f.message() + " (details not sent: " + unencodable + ")", null, f.stack(), f.cause());
    }
}
