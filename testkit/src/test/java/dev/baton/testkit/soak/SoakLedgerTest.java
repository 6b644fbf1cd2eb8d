package dev.baton.testkit.soak;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

class SoakLedgerTest {

    private static final SiteKey SITE = new SiteKey("soak", "wf-1", "step");
    private final SoakLedger ledger = new SoakLedger();

    private static ActivityOutcome completed(String requestId, String output) {
        return new ActivityOutcome(SITE, requestId, 1, true, output.getBytes(UTF_8), "text/plain", null, "w1", false);
    }

    private static ActivityOutcome failed(String requestId, int attempt, String reason) {
        return new ActivityOutcome(SITE, requestId, attempt, false, new byte[0], null, reason, "w1", false);
    }

    private SentRequest dispatched(Expectation expected, ActivityOutcome answer) {
        SentRequest r = ledger.expect(1, expected);
        ledger.track(r, CompletableFuture.completedFuture(answer));
        return r;
    }

    @Test
    void shouldPassARequestAnsweredOnceWithAnAllowedOutcome() {
        dispatched(Expectation.completedWith("echo", "x"), completed("r1", "x"));

        SoakLedger.Verdict v = ledger.verify();

        assertThat(v.violations()).isEmpty();
        assertThat(v.exactlyOnce()).isEqualTo(1);
        assertThat(ledger.activitiesSettled()).isEqualTo(1);
    }

    @Test
    void shouldCountASecondDifferentAnswerThatReachedTheUnmatchedHandlerAgainstItsRequest() {
        dispatched(Expectation.completedWith("echo", "x"), completed("r1", "x"));

        ledger.unmatchedHandler().handle(completed("r1", "y"));

        SoakLedger.Verdict v = ledger.verify();
        assertThat(v.moreThanOnce()).isEqualTo(1);
        assertThat(v.violations()).singleElement().asString().contains("request r1 of activity 1 got 2 outcomes");
    }

    /** h/adv26: the outcome of a dispatch the broker did not acknowledge answers that request; it is no stray. */
    @Test
    void shouldCountTheOutcomeOfAnUnacknowledgedDispatchAgainstItsRequest() {
        SentRequest r = ledger.expect(1, Expectation.completedWith("echo", "x"));
        ledger.track(r, CompletableFuture.failedFuture(new dev.baton.dispatcher.DispatchUnacknowledgedException("not acknowledged", "r7",
                new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record(s)"))));

        ledger.unmatchedHandler().handle(completed("r7", "x"));

        SoakLedger.Verdict v = ledger.verify();
        assertThat(v.violations()).isEmpty();
        assertThat(v.exactlyOnce()).isEqualTo(1);
    }

    /** A dispatch that was not written has no request id history should see (the audit checks every known id). */
    @Test
    void shouldNotKnowTheIdOfADispatchThatWasNotWritten() {
        SentRequest r = ledger.expect(1, Expectation.completedWith("echo", "x"));
        ledger.track(r, CompletableFuture.failedFuture(new dev.baton.dispatcher.DispatchException("could not send ...; nothing was written",
                "r8")));

        assertThat(ledger.requestIds()).doesNotContain("r8");
    }

    @Test
    void shouldCountTheSameAnswerGivenAgainOnce() {
        dispatched(Expectation.completedWith("echo", "x"), completed("r1", "x"));

        ledger.unmatchedHandler().handle(completed("r1", "x"));

        SoakLedger.Verdict v = ledger.verify();
        assertThat(v.violations()).isEmpty();
        assertThat(v.exactlyOnce()).isEqualTo(1);
    }

    @Test
    void shouldAnswerARequestSentRawFromTheUnmatchedHandlerOnce() {
        ledger.expectRaw(1, Expectation.completed("resent"), "raw-1");

        ledger.unmatchedHandler().handle(completed("raw-1", "x"));

        assertThat(ledger.settled()).isEqualTo(1);
        assertThat(ledger.verify().violations()).isEmpty();
        assertThat(ledger.requestIds()).containsExactly("raw-1");
    }

    @Test
    void shouldKeepAnOutboxRelayApartFromTheAnswers() {
        ledger.expectRaw(1, Expectation.completed("resent"), "raw-1");

        ledger.unmatchedHandler().handle(new ActivityOutcome(SITE, "raw-1", 1, true, new byte[0], null, null, "w1", true));

        assertThat(ledger.settled()).isZero();
        assertThat(ledger.outbox()).hasSize(1);
        SoakLedger.Verdict v = ledger.verify();
        assertThat(v.violations()).singleElement().asString().contains("no outcome (expected exactly one outcome)");
        assertThat(v.outboxByRole()).containsExactlyEntriesOf(Map.of("resent", 1));
    }

    @Test
    void shouldFlagAnOutcomeItsRoleDoesNotAllowNamingWhatWasAllowed() {
        dispatched(Expectation.failed("takeover: attempt 1", "superseded: by attempt 2").or(Expectation.completedAtAttempt("takeover: attempt 1", 1)),
                failed("r1", 1, "cancelled: by request c"));

        SoakLedger.Verdict v = ledger.verify();

        assertThat(v.wrongKind()).isEqualTo(1);
        assertThat(v.violations()).singleElement().asString()
                .contains("allowed: 'superseded: by attempt 2...' or completed at attempt 1");
    }

    @Test
    void shouldFlagCallersOfOneRunToldDifferentOutcomes() {
        SentRequest first = dispatched(Expectation.completed("joined: first"), completed("r1", "a"));
        SentRequest second = dispatched(Expectation.completed("joined: joined"), completed("r2", "b"));
        ledger.sameOutcome(first, second);

        SoakLedger.Verdict v = ledger.verify();

        assertThat(v.notSameAsRun()).isEqualTo(1);
        assertThat(v.violations()).singleElement().asString().contains("callers of one run get one outcome");
    }

    @Test
    void shouldNotTellCallersOfOneRunApartByTheWorkerNamed() {
        SentRequest first = dispatched(Expectation.completed("joined: first"), completed("r1", "a"));
        SentRequest second = dispatched(Expectation.completed("joined: joined"),
                new ActivityOutcome(SITE, "r2", 1, true, "a".getBytes(UTF_8), "text/plain", null, null, false));
        ledger.sameOutcome(first, second);

        assertThat(ledger.verify().violations()).isEmpty();
    }

    @Test
    void shouldFlagAnOutcomeForARequestNeverSent() {
        ledger.unmatchedHandler().handle(completed("ghost", "x"));

        SoakLedger.Verdict v = ledger.verify();

        assertThat(v.strays()).isEqualTo(1);
        assertThat(v.violations()).singleElement().asString().contains("request ghost this soak never sent");
    }

    @Test
    void shouldCountAClientErrorAsSettledButNotAnswered() {
        SentRequest r = ledger.expect(1, Expectation.completed("echo"));
        ledger.track(r, CompletableFuture.failedFuture(new IllegalStateException("closed")));

        assertThat(ledger.settled()).isEqualTo(1);
        assertThat(ledger.verify().violations()).singleElement().asString().contains("client error: IllegalStateException");
    }

    @Test
    void shouldAllowTransportExhaustionOnlyWhereAsked() {
        ActivityOutcome exhausted = failed("r1", 1, "transport-exhausted: no heartbeat");

        assertThat(Expectation.completed("long").orTransportExhausted().accepts(exhausted)).isTrue();
        assertThat(Expectation.failed("pinned to an undeclared node", "unavailable: unknown node").accepts(exhausted)).isFalse();
    }
}
