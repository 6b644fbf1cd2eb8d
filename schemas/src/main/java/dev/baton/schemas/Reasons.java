package dev.baton.schemas;

import java.util.List;

/**
 * The reason vocabulary: the prefix of a failure reason is the contract, the rest is for people.
 *
 * <ul>
 *   <li>{@code retryable:} may be retried by policy; {@code terminal:} never retried</li>
 *   <li>{@code lost:} worker lost, the same attempt re-delivered; {@code transport-exhausted:} the
 *       transport's own budget is spent (the activity may never have run)</li>
 *   <li>{@code unavailable:} schedule-to-start expired (unserved / saturated)</li>
 *   <li>{@code cancelled:}; {@code superseded:} a higher attempt took over</li>
 * </ul>
 */
public final class Reasons {

    public static final String RETRYABLE = "retryable:";
    public static final String TERMINAL = "terminal:";
    public static final String LOST = "lost:";
    public static final String TRANSPORT_EXHAUSTED = "transport-exhausted:";
    public static final String UNAVAILABLE = "unavailable:";
    public static final String CANCELLED = "cancelled:";
    public static final String SUPERSEDED = "superseded:";

    public static final List<String> PREFIXES = List.of(RETRYABLE, TERMINAL, LOST, TRANSPORT_EXHAUSTED, UNAVAILABLE, CANCELLED, SUPERSEDED);

    private Reasons() {
    }

    /** The vocabulary prefix of {@code reason}, or empty if it has none. */
    public static String prefixOf(String reason) {
        if (reason != null) {
            for (String p : PREFIXES) {
                if (reason.startsWith(p)) {
                    return p;
                }
            }
        }
        return "";
    }

    /** {@code reason} with a vocabulary prefix: one without is read as {@code retryable:} (any other failure is retryable). */
    public static String normalize(String reason) {
        if (reason == null || reason.isBlank()) {
            return RETRYABLE + " activity failed without a reason";
        }
        return prefixOf(reason).isEmpty() ? RETRYABLE + " " + reason : reason;
    }

    /**
     * A worker's failure reason: {@code retryable:} and {@code terminal:} as given; none, or one of Baton's own verdicts
     * ({@code lost:}, {@code superseded:}, ...: Baton's decisions, never a worker's), read as {@code retryable:}.
     */
    public static String fromWorker(String reason) {
        String normalized = normalize(reason);
        return normalized.startsWith(RETRYABLE) || normalized.startsWith(TERMINAL) ? normalized : RETRYABLE + " " + normalized;
    }

    public static String of(String prefix, String detail) {
        return prefix + " " + detail;
    }
}
