package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 11 (low). The invariant checker (the README's way to test against
 * Baton, and the demo's and soak's audit) called any outcome whose reason merely contained the word "parked" a
 * violation, "outcome caused by a park". A handler failing {@code terminal: customer parked the order}, on a site
 * that was never parked, failed the audit (and {@code baton demo} exits non-zero on a failed audit).
 */
class Adv22wParkWordTest {

    private static final SiteRef SITE = new SiteRef("ns", "wf", "1");

    @Test
    void aHandlersFailureThatMentionsParkingIsNoPark() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, "r1", null),
                event(HistoryKind.FAILED, 1, "r1", "terminal: customer parked the order"));
        Outcome failed = Outcome.newBuilder().setStatus(OutcomeStatus.FAILED).setSite(SITE).setRequestId("r1").setAttempt(1)
                .setReason("terminal: customer parked the order").setUnmatched(false).setAtMillis(0L).build();

        assertThat(InvariantChecker.check(history, List.of(failed)).violations()).isEmpty();
    }

    private static HistoryEvent event(HistoryKind kind, int generation, String requestId, String reason) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(SITE).setAttempt(1).setGeneration(generation).setRequestId(requestId)
                .setReason(reason).setAtMillis(0L).build();
    }
}
