package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

/** The caller's view of a {@code baton.results} event. */
class OutcomeTest {

    @Test
    void shouldGiveACompletionItsOutputAndContentType() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.completed("r-1", "billing-1").build());

        assertThat(outcome.site()).isEqualTo(new SiteKey("payments", "order-42", "3"));
        assertThat(outcome.requestId()).isEqualTo("r-1");
        assertThat(outcome.attempt()).isEqualTo(1);
        assertThat(outcome.completed()).isTrue();
        assertThat(outcome.outputAsString()).isEqualTo("ok");
        assertThat(outcome.contentType()).isEqualTo("text/plain");
        assertThat(outcome.workerId()).isEqualTo("w-1");
        assertThat(outcome.unmatched()).isFalse();
    }

    @Test
    void shouldGiveAFailureItsReasonAndNoOutput() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.failed("r-1", "billing-1", "terminal: card declined").build());

        assertThat(outcome.completed()).isFalse();
        assertThat(outcome.reason()).isEqualTo("terminal: card declined");
        assertThat(outcome.reasonPrefix()).isEqualTo("terminal:");
        assertThat(outcome.output()).isEmpty();
        assertThat(outcome.contentType()).isNull();
    }

    @Test
    void shouldNotCallAnOutcomeOfUnknownStatusCompleted() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.completed("r-1", "billing-1").setStatus(OutcomeStatus.UNKNOWN).build());

        assertThat(outcome.completed()).isFalse();
    }

    @Test
    void shouldCarryTheUnmatchedFlag() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.completed("r-1", "billing-1").setUnmatched(true).build());

        assertThat(outcome.unmatched()).isTrue();
    }

    @Test
    void shouldCopyTheOutputWithoutMovingTheEventsBuffer() {
        Outcome event = OutcomeEvents.completed("r-1", "billing-1").build();
        ByteBuffer data = event.getOutput().getData();
        int position = data.position();

        ActivityOutcome first = ActivityOutcome.of(event);
        ActivityOutcome second = ActivityOutcome.of(event);

        assertThat(data.position()).isEqualTo(position);
        assertThat(second.output()).isEqualTo(first.output()).isNotSameAs(first.output());
    }

    @Test
    void shouldHaveNoReasonPrefixForACompletion() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.completed("r-1", "billing-1").setReason("terminal: ignored").build());

        assertThat(outcome.reasonPrefix()).isEmpty();
    }

    @Test
    void shouldHaveNoReasonPrefixForAReasonOutsideTheVocabulary() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.failed("r-1", "billing-1", "boom").build());

        assertThat(outcome.reasonPrefix()).isEmpty();
    }

    @Test
    void shouldDescribeAFailureBySiteAttemptAndReason() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.failed("r-1", "billing-1", "terminal: card declined").build());

        assertThat(outcome).hasToString("ActivityOutcome[payments/order-42/3 attempt 1 failed: terminal: card declined]");
    }

    @Test
    void shouldDescribeAnUnmatchedCompletionBySiteAttemptAndOutputSize() {
        ActivityOutcome outcome = ActivityOutcome.of(OutcomeEvents.completed("r-1", "billing-1").setUnmatched(true).build());

        assertThat(outcome).hasToString("ActivityOutcome[payments/order-42/3 attempt 1 completed, 2 bytes, unmatched]");
    }
}
