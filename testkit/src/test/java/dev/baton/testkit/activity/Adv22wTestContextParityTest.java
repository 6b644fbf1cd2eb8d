package dev.baton.testkit.activity;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.schemas.payload.PayloadLimits;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 14 (low). {@link TestActivityContext} promises that a handler failing on a
 * worker fails here too. A worker's context refuses heartbeat details over {@value PayloadLimits#MAX_HEARTBEAT_DETAILS_BYTES}
 * bytes at the handler's call ({@code IllegalArgumentException}, so the handler fails {@code retryable:} on every attempt);
 * the test context recorded them, and the handler's unit test passed.
 */
class Adv22wTestContextParityTest {

    @Test
    void heartbeatDetailsOverTheWorkersLimitAreRefusedAsOnAWorker() {
        TestActivityContext ctx = TestActivityContext.builder().build();
        assertThatThrownBy(() -> ctx.heartbeat(new byte[PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES));
        assertThatThrownBy(() -> ctx.heartbeat((Object) "x".repeat(PayloadLimits.MAX_HEARTBEAT_DETAILS_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
