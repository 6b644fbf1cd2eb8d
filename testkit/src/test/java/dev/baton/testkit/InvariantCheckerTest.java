package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import org.junit.jupiter.api.Test;

class InvariantCheckerTest {

    private static final SiteRef SITE = new SiteRef("ns", "wf", "1");

    private static HistoryEvent event(HistoryKind kind, int attempt, Integer generation, String requestId, String reason) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(SITE).setAttempt(attempt).setGeneration(generation)
                .setRequestId(requestId).setReason(reason).setAtMillis(0L).build();
    }

    private static Outcome outcome(String requestId, String reason) {
        return outcome(requestId, reason, false);
    }

    private static Outcome outcome(String requestId, String reason, boolean unmatched) {
        return Outcome.newBuilder().setStatus(reason == null ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED).setSite(SITE)
                .setRequestId(requestId).setAttempt(1).setReason(reason).setUnmatched(unmatched).setAtMillis(0L).build();
    }

    @Test
    void shouldPassACleanHistoryWithAParkAndATransportLoss() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.PARKED, 1, 2, "r1", "parked"),
                event(HistoryKind.TRANSPORT_LOST, 1, 3, "r1", "lost: x"), event(HistoryKind.COMPLETED, 1, 3, "r1", null));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null))).violations()).isEmpty();
    }

    @Test
    void shouldFlagARequestAnsweredTwoWaysOrNever() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.DISPATCHED, 1, 1, "r2", null));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null), outcome("r1", "terminal: x"))).violations())
                .anySatisfy(v -> assertThat(v).contains("r1 got 2 distinct outcomes"))
                .anySatisfy(v -> assertThat(v).contains("r2 got 0 distinct outcomes"));
    }

    @Test
    void shouldCountTheSameAnswerGivenTwiceOnce() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.COMPLETED, 1, 1, "r1", null),
                event(HistoryKind.OUTCOME_REPUBLISHED, 1, 1, "r1", null));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null), outcome("r1", null))).violations()).isEmpty();
    }

    @Test
    void shouldLetAnAtLeastOnceHistoryMissARedeliveryButNeverAnExactlyOnceOne() {
        // The TRANSPORT_LOST of generation 2 was lost with a crash whose state survived: the completion names generation 2.
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.COMPLETED, 1, 2, "r1", null));
        List<Outcome> outcomes = List.of(outcome("r1", null), outcome("r1", null));
        assertThat(InvariantChecker.check(history, outcomes, Set.of(), true).violations()).isEmpty();
        assertThat(InvariantChecker.check(history, outcomes, Set.of(), false).violations())
                .singleElement().asString().contains("accepted COMPLETED of attempt 1 generation 2 while the current was attempt 1 generation 1");
    }

    @Test
    void shouldLetAnAtLeastOnceHistoryShowACompletionBeforeItsDispatch() {
        // A frozen instance's DISPATCHED, held by its producer, landed after the new owner's COMPLETED (h/adv23x).
        List<HistoryEvent> history = List.of(event(HistoryKind.COMPLETED, 1, 1, "r1", null), event(HistoryKind.DISPATCHED, 1, 1, "r1", null));
        List<Outcome> outcomes = List.of(outcome("r1", null));
        assertThat(InvariantChecker.check(history, outcomes, Set.of(), true).violations()).isEmpty();
        assertThat(InvariantChecker.check(history, outcomes, Set.of(), false).violations())
                .singleElement().asString().contains("accepted COMPLETED of attempt 1 generation 1 while the current was none");
    }

    @Test
    void shouldHoldAtLeastOnceOutcomesToOneDistinctAnswer() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.COMPLETED, 1, 1, "r1", null));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null), outcome("r1", "terminal: x")), Set.of(), true).violations())
                .singleElement().asString().contains("r1 got 2 distinct outcomes");
    }

    @Test
    void shouldSayWhereTheSiteOfAnUnansweredRequestStopped() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.TRANSPORT_LOST, 1, 2, "r1", "lost: x"));
        assertThat(InvariantChecker.check(history, List.of()).violations())
                .singleElement().asString().endsWith("r1 got 0 distinct outcomes, expected exactly 1 (its site's history: [DISPATCHED, TRANSPORT_LOST])");
    }

    @Test
    void shouldFlagACompletionAcceptedFromARevokedGeneration() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.TRANSPORT_LOST, 1, 2, "r1", "lost: x"),
                event(HistoryKind.COMPLETED, 1, 1, "r1", null));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null))).violations())
                .singleElement().asString().contains("generation 1 while the current was attempt 1 generation 2");
    }

    @Test
    void shouldFlagAFailureRecordedForAPark() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.PARKED, 1, 2, "r1", "parked"),
                event(HistoryKind.FAILED, 1, 1, "r1", "retryable: parked"));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", "retryable: parked"))).violations())
                .anySatisfy(v -> assertThat(v).contains("failure was recorded for parked generation"))
                .anySatisfy(v -> assertThat(v).contains("outcome caused by a park"));
    }

    @Test
    void shouldFlagAnOutcomeWithoutADispatch() {
        assertThat(InvariantChecker.check(List.of(), List.of(outcome("ghost", null))).violations())
                .singleElement().asString().contains("never saw");
    }

    @Test
    void shouldCountAJoinedCallerAndARefusalAsRequests() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.DUPLICATE_IGNORED, 1, 1, "r2", null),
                event(HistoryKind.UNAVAILABLE, 1, null, "r3", "unavailable: unknown node 'x' on queue 'q'"));
        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null))).violations())
                .anySatisfy(v -> assertThat(v).contains("r2 got 0 distinct outcomes"))
                .anySatisfy(v -> assertThat(v).contains("r3 got 0 distinct outcomes"));
    }

    @Test
    void shouldCountAnInvalidDispatchAndOneThatHitABugAsRequests() {
        List<HistoryEvent> history = List.of(event(HistoryKind.INVALID_DISPATCH, 0, null, "bad", "terminal: invalid dispatch: x"),
                event(HistoryKind.INTERNAL_ERROR, 1, null, "bug", "retryable: internal error"));
        assertThat(InvariantChecker.check(history, List.of(outcome("bad", "terminal: invalid dispatch: x"))).violations())
                .singleElement().asString().contains("bug got 0 distinct outcomes");
    }

    @Test
    void shouldFlagAnOutboxRecordForARequestHistoryNeverSaw() {
        Outcome relay = outcome("ghost", null, true);

        assertThat(InvariantChecker.check(List.of(), List.of(relay)).violations()).singleElement().asString().contains("outbox record for request ghost");
    }

    @Test
    void shouldNotCountAnOutboxRecordAsAnAnswer() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null), event(HistoryKind.COMPLETED, 1, 1, "r1", null));
        Outcome relay = outcome("r1", null, true);

        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null), relay)).violations()).isEmpty();
    }

    @Test
    void shouldFlagASentRequestHistoryNeverSaw() {
        List<HistoryEvent> history = List.of(event(HistoryKind.DISPATCHED, 1, 1, "r1", null));

        assertThat(InvariantChecker.check(history, List.of(outcome("r1", null)), Set.of("r1", "lost")).violations())
                .singleElement().asString().isEqualTo("request lost was sent, but history never saw it");
    }
}
