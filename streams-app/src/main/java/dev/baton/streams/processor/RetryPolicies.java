package dev.baton.streams.processor;

import java.util.List;
import java.util.OptionalLong;

import dev.baton.events.RetryPolicy;
import dev.baton.schemas.Reasons;

/** Decides whether a failed attempt is retried, and after how long. */
final class RetryPolicies {

    private final RetryPolicy defaults;

    RetryPolicies(RetryPolicy defaults) {
        this.defaults = defaults;
    }

    /**
     * The backoff before attempt {@code attempt + 1}, or empty when the failure is final: the reason
     * is not {@code retryable:}, names a non-retryable prefix, or the attempts are spent.
     */
    OptionalLong backoffAfter(RetryPolicy policy, int attempt, String reason) {
        RetryPolicy p = policy != null ? policy : defaults;
        if (!reason.startsWith(Reasons.RETRYABLE)) {
            return OptionalLong.empty();
        }
        String detail = reason.substring(Reasons.RETRYABLE.length()).trim();
        List<String> nonRetryable = p.getNonRetryableReasonPrefixes();
        for (String prefix : nonRetryable) {
            if (detail.startsWith(prefix) || reason.startsWith(prefix)) {
                return OptionalLong.empty();
            }
        }
        if (p.getMaxAttempts() > 0 && attempt >= p.getMaxAttempts()) {
            return OptionalLong.empty();
        }
        double delay = p.getInitialIntervalMillis() * Math.pow(Math.max(1.0, p.getBackoffCoefficient()), attempt - 1);
        return OptionalLong.of((long) Math.min(delay, p.getMaxIntervalMillis()));
    }
}
