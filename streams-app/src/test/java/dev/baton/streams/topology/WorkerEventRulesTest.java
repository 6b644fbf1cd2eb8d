package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.time.Duration;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WorkerEventRulesTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    private ActivityTask dispatched() {
        h.send(request(site, 1, "r1").build());
        h.history();
        return h.tasks().get(0);
    }

    @Test
    void shouldLeaseWithTheCurrentToken() {
        ActivityTask task = dispatched();
        h.report(task, WorkerEventKind.LEASED, "w1");

        assertThat(h.history()).singleElement().satisfies(e -> {
            assertThat(e.getKind()).isEqualTo(HistoryKind.LEASED);
            assertThat(e.getWorkerId()).isEqualTo("w1");
        });
        assertThat(h.controls()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = WorkerEventKind.class, names = {"LEASED", "HEARTBEAT", "COMPLETED", "FAILED", "PARKED"})
    void shouldRefuseAForgedTokenWithoutStoppingTheWorkerItNames(WorkerEventKind kind) {
        ActivityTask task = dispatched();
        h.report(task, WorkerEventKind.LEASED, "victim");
        h.history();
        String forged = CompletionToken.random().value();

        h.report(task, kind, "victim", forged, SiteHarness.payload("x"), "retryable: x");

        assertThat(h.historyKinds()).containsExactly(HistoryKind.COMPLETION_REFUSED);
        assertThat(h.controls()).as("a forged report stops nobody: it names the victim, it holds nothing").isEmpty();
        assertThat(h.results()).isEmpty();
        assertThat(h.counter("baton_refused_completions")).isEqualTo(1.0);
    }

    @ParameterizedTest
    @EnumSource(value = WorkerEventKind.class, names = {"LEASED", "HEARTBEAT", "COMPLETED", "FAILED", "PARKED"})
    void shouldRefuseAStaleTokenAndStopThatRunOnly(WorkerEventKind kind) {
        ActivityTask first = dispatched();
        h.report(first, WorkerEventKind.LEASED, "zombie");
        h.advance(Duration.ofMillis(30_100)); // silent: transport loss, generation 2
        ActivityTask second = h.tasks().get(0);
        h.report(second, WorkerEventKind.LEASED, "w2");
        h.history();
        h.controls();

        h.report(first, kind, "zombie", first.getToken(), SiteHarness.payload("x"), "retryable: x");

        assertThat(h.historyKinds()).containsExactly(HistoryKind.COMPLETION_REFUSED);
        assertThat(h.controls()).singleElement().satisfies(c -> {
            assertThat(c.getWorkerId()).isEqualTo("zombie");
            assertThat(c.getGeneration()).isEqualTo(1);
            assertThat(c.getTokenFingerprint()).isEqualTo(CompletionToken.fingerprint(first.getToken()))
                    .isNotEqualTo(CompletionToken.fingerprint(second.getToken()));
        });
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldResolveOnCompletionWithTheCurrentToken() {
        ActivityTask task = dispatched();
        h.report(task, WorkerEventKind.LEASED, "w1");
        h.complete(task, "w1", "ok");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getReplyKey()).isEqualTo(SiteHarness.CLIENT);
            assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("ok"));
            assertThat(o.getUnmatched()).isFalse();
        });
        assertThat(h.historyKinds()).containsExactly(HistoryKind.LEASED, HistoryKind.COMPLETED);
    }

    @Test
    void shouldKeepTheOutcomeButNotTheInputOfAResolvedSite() {
        ActivityTask task = dispatched();
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getInput()).isNotNull());

        h.complete(task, "w1", "ok");

        assertThat(h.siteState(site)).hasValueSatisfying(s -> {
            assertThat(s.getInput()).isNull();
            assertThat(s.getOutcomeOutput()).isEqualTo(SiteHarness.payload("ok"));
            assertThat(s.getIdempotencyKey()).isEqualTo(task.getIdempotencyKey());
        });
    }

    @Test
    void shouldAcceptACompletionThatOvertakesItsLeaseAndQuietlyIgnoreTheLateLease() {
        ActivityTask task = dispatched();
        h.complete(task, "w1", "ok");
        h.report(task, WorkerEventKind.LEASED, "w1");

        assertThat(h.results()).hasSize(1);
        assertThat(h.historyKinds()).containsExactly(HistoryKind.COMPLETED, HistoryKind.LATE_LEASE_IGNORED);
        assertThat(h.controls()).as("the late half of a pair is no zombie").isEmpty();
    }

    @Test
    void shouldPublishAFailedOutcomeForATerminalFailure() {
        ActivityTask task = dispatched();
        h.fail(task, "w1", "terminal: card declined");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).isEqualTo("terminal: card declined");
        });
        assertThat(h.tasks()).isEmpty();
    }

    /**
     * A hostile worker's failure report whose causes nest 300,000 deep (five bytes a level, 1.5 MB): refused as corrupt and
     * dead-lettered; the stream thread goes on and the site's real completion resolves it. Avro's reader used to end the
     * thread here with a StackOverflowError (docs/decisions.md, "The streams app's inputs decoded by hand").
     */
    @Test
    void shouldDeadLetterAReportWhoseFailureNestsTooDeepAndKeepProcessing() {
        ActivityTask task = dispatched();
        WorkerEvent report = WorkerEvent.newBuilder().setKind(WorkerEventKind.FAILED).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId("w-hostile").setAtMillis(0L).build();
        byte[] bytes = h.serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, report);
        ByteArrayOutputStream forged = new ByteArrayOutputStream();
        forged.write(bytes, 0, bytes.length - 2); // all but the failure's and the heartbeat content type's "none" branches
        forged.write(2); // a failure
        for (int level = 1; level <= 300_000; level++) {
            forged.writeBytes(new byte[] {0, 0, 0, 0, (byte) (level < 300_000 ? 2 : 0)}); // empty strings, no details, a cause
        }
        forged.write(0); // no heartbeat content type
        h.pipeWorkerEvent(site.toBytes(), forged.toByteArray());
        h.complete(task, "w1", "ok");

        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("CORRUPT_BODY"));
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED));
    }

    @Test
    void shouldDeadLetterACompletionForAnUnknownSiteInsteadOfPublishingIt() {
        ActivityTask ghost = ActivityTask.newBuilder().setSite(site("ghost").toRef()).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey("k").setQueue("payments").setActivityType("charge")
                .setScheduledAtMillis(0L).build();
        h.complete(ghost, "w9", "orphan");

        assertThat(h.results()).as("an unverifiable completion reaches no caller").isEmpty();
        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("unknown site", "not relayed"));
        assertThat(h.historyKinds()).containsExactly(HistoryKind.UNMATCHED_COMPLETION);
    }

    @Test
    void shouldRelayALateCompletionOfAResolvedSiteOnlyWithATokenTheSiteIssued() {
        ActivityTask task = dispatched();
        h.complete(task, "w1", "first");
        h.results();

        h.report(task, WorkerEventKind.COMPLETED, "w1", CompletionToken.random().value(), SiteHarness.payload("forged"), null);
        assertThat(h.results()).as("a forged completion of a resolved site is not relayed").isEmpty();

        h.complete(task, "w1", "again");
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getUnmatched()).isTrue();
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("again"));
        });
    }

    @ParameterizedTest
    @EnumSource(value = WorkerEventKind.class, names = {"LEASED", "HEARTBEAT", "COMPLETED", "FAILED", "PARKED"})
    void shouldRefuseTheCurrentTokenPresentedForAMadeUpGenerationAsForged(WorkerEventKind kind) {
        ActivityTask task = dispatched();
        h.report(task, WorkerEventKind.LEASED, "w1");
        h.history();

        h.report(dev.baton.events.WorkerEvent.newBuilder().setKind(kind).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(7).setToken(task.getToken()).setWorkerId("w1").setOutput(SiteHarness.payload("by-altered-generation"))
                .setReason("terminal: x").setAtMillis(0L).build());

        assertThat(h.history()).singleElement().satisfies(e -> {
            assertThat(e.getKind()).isEqualTo(HistoryKind.COMPLETION_REFUSED);
            assertThat(e.getGeneration()).isEqualTo(7);
            assertThat(e.getReason()).contains("not issued by this site for attempt 1 generation 7");
        });
        assertThat(h.results()).as("the generation is part of what the token proves").isEmpty();
        assertThat(h.controls()).isEmpty();
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(1));

        h.complete(task, "w1", "real");
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("real")));
    }

    @Test
    void shouldTakeALeaseSentAgainAsAHeartbeat() {
        h.send(request(site, 1, "r1").setTimeouts(SiteHarness.timeouts(null, 5_000L, null, null)).build());
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");
        long startToClose = h.siteState(site).orElseThrow().getDeadlines().get("START_TO_CLOSE");
        h.history();
        h.advance(Duration.ofMillis(1_000));

        h.report(task, WorkerEventKind.LEASED, "w1");

        assertThat(h.historyKinds()).as("no second LEASED").isEmpty();
        assertThat(h.siteState(site).orElseThrow().getDeadlines().get("START_TO_CLOSE")).as("start-to-close not restarted")
                .isEqualTo(startToClose);
    }

    @Test
    void shouldIgnoreALateLeaseOfAGenerationThatFailedRetryably() {
        ActivityTask task = dispatched();
        h.fail(task, "w1", "retryable: flaky");
        h.history();

        h.report(task, WorkerEventKind.LEASED, "w1");

        assertThat(h.historyKinds()).containsExactly(HistoryKind.LATE_LEASE_IGNORED);
        assertThat(h.controls()).isEmpty();
        assertThat(h.counter("baton_refused_completions")).isZero();
    }

    @Test
    void shouldSendASecondCompletionOfAResolvedSiteToTheOutboxWithoutChangingIt() {
        ActivityTask task = dispatched();
        h.complete(task, "w1", "first");
        h.results();
        h.complete(task, "w2", "second");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getUnmatched()).isTrue();
            assertThat(o.getReplyKey()).isEqualTo(SiteHarness.CLIENT);
        });
        h.send(request(site, 1, "r-again").build());
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("first")));
    }

    @Test
    void shouldEndARunWhoseCompletionIsOverTheLimitAsTerminalOutputTooLargeAndDeadLetterTheReport() {
        ActivityTask task = dispatched();
        h.complete(task, "w1", "x".repeat(5_000));

        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("max.payload.bytes"));
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("terminal: OutputTooLarge:");
        });
        h.complete(task, "w1", "small"); // the generation is spent: a second report is late, not a second outcome
        assertThat(h.results()).allSatisfy(o -> assertThat(o.getUnmatched()).isTrue());
    }
}
