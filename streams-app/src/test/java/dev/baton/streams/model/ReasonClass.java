package dev.baton.streams.model;

import java.util.List;

/**
 * The reasons the model predicts, by class: the vocabulary prefix plus the words that tell the cases
 * apart. A reason the streams app writes is compared through {@link #of(String)}; a worker's own
 * reason is compared whole, after {@link #normalizeWorkerReason}.
 */
public final class ReasonClass {

    static final String RETRYABLE = "retryable:";

    public static final String INTERNAL_ERROR = "retryable: internal error";
    public static final String START_TO_CLOSE = "retryable: start-to-close";
    public static final String CALLERS_FULL = "retryable: callers full";
    public static final String SUPERSEDED = "superseded:";
    public static final String CANCELLED = "cancelled:";
    public static final String TRANSPORT_EXHAUSTED = "transport-exhausted:";
    public static final String SITE_COLLISION = "terminal: SiteCollision";
    public static final String ATTEMPT_REFUSED = "terminal: AttemptRefused";
    public static final String INVALID = "terminal: invalid";
    public static final String SCHEDULE_TO_CLOSE = "terminal: schedule-to-close";
    public static final String UNKNOWN_QUEUE = "unavailable: unknown queue";
    public static final String UNKNOWN_NODE = "unavailable: unknown node";
    public static final String UNSERVED = "unavailable: unserved";
    public static final String SATURATED = "unavailable: saturated";

    /** Reason classes by the start of the streams app's text; the first that matches wins. */
    private static final List<String[]> BY_START = List.of(
            new String[] {"retryable: internal error", INTERNAL_ERROR},
            new String[] {"retryable: start-to-close", START_TO_CLOSE},
            new String[] {"superseded:", SUPERSEDED},
            new String[] {"cancelled:", CANCELLED},
            new String[] {"transport-exhausted:", TRANSPORT_EXHAUSTED},
            new String[] {"terminal: SiteCollision", SITE_COLLISION},
            new String[] {"terminal: AttemptRefused", ATTEMPT_REFUSED},
            new String[] {"terminal: invalid dispatch", INVALID},
            new String[] {"terminal: schedule-to-close", SCHEDULE_TO_CLOSE},
            new String[] {"unavailable: unknown queue", UNKNOWN_QUEUE},
            new String[] {"unavailable: unknown node", UNKNOWN_NODE},
            new String[] {"unavailable: unserved", UNSERVED},
            new String[] {"unavailable: saturated", SATURATED});

    private ReasonClass() {
    }

    /** The class of a reason the streams app wrote; a worker's reason (or null) comes back as it is. */
    public static String of(String reason) {
        if (reason == null) {
            return null;
        }
        for (String[] c : BY_START) {
            if (reason.startsWith(c[0])) {
                return c[1];
            }
        }
        if (reason.startsWith("retryable: site ") && reason.contains("joined callers waiting")) {
            return CALLERS_FULL;
        }
        return reason;
    }

    /** A worker's failure reason as the contract reads it: without a vocabulary prefix it is retryable. */
    public static String normalizeWorkerReason(String reason) {
        if (reason == null || reason.isBlank()) {
            return "retryable: activity failed without a reason";
        }
        // Baton's own verdicts are never a worker's: read as retryable: like a reason without a prefix (h/adv22w).
        for (String prefix : List.of("retryable:", "terminal:")) {
            if (reason.startsWith(prefix)) {
                return reason;
            }
        }
        return "retryable: " + reason;
    }
}
