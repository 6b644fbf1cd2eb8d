package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.events.RetryPolicy;
import org.junit.jupiter.api.Test;

class RetryPoliciesTest {

    private final RetryPolicies policies = new RetryPolicies(new RetryPolicy(1_000L, 2.0, 60_000L, 3, List.of()));

    @Test
    void shouldGrowTheBackoffByTheCoefficientUpToTheMaxInterval() {
        RetryPolicy p = new RetryPolicy(100L, 3.0, 1_000L, 0, List.of());
        assertThat(policies.backoffAfter(p, 1, "retryable: x")).hasValue(100);
        assertThat(policies.backoffAfter(p, 2, "retryable: x")).hasValue(300);
        assertThat(policies.backoffAfter(p, 3, "retryable: x")).hasValue(900);
        assertThat(policies.backoffAfter(p, 4, "retryable: x")).hasValue(1_000);
    }

    @Test
    void shouldUseTheDefaultPolicyWhenAnActivitySetsNone() {
        assertThat(policies.backoffAfter(null, 1, "retryable: x")).hasValue(1_000);
        assertThat(policies.backoffAfter(null, 3, "retryable: x")).as("3 attempts in all").isEmpty();
    }

    @Test
    void shouldTreatZeroMaxAttemptsAsUnlimited() {
        assertThat(policies.backoffAfter(new RetryPolicy(10L, 1.0, 10L, 0, List.of()), 10_000, "retryable: x")).hasValue(10);
    }

    @Test
    void shouldRetryOnlyRetryableReasons() {
        for (String reason : List.of("terminal: x", "cancelled: x", "unavailable: x", "transport-exhausted: x", "superseded: x")) {
            assertThat(policies.backoffAfter(null, 1, reason)).as(reason).isEmpty();
        }
    }
}
