package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.CLIENT;
import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.site;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DispatchRulesTest {

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldPublishATaskWithAFreshTokenWhenNoSiteIsLive() {
        h.send(request(site, 1, "r1").build());

        ActivityTask task = h.tasks().get(0);
        assertThat(task.getAttempt()).isEqualTo(1);
        assertThat(task.getGeneration()).isEqualTo(1);
        assertThat(task.getToken()).hasSize(CompletionToken.LENGTH);
        assertThat(task.getIdempotencyKey()).isEqualTo("idem-1");
        assertThat(task.getHeartbeatWindowMillis()).isEqualTo(30_000L);
        assertThat(h.historyKinds()).containsExactly(HistoryKind.DISPATCHED);
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldIgnoreADuplicateDispatchOfTheSameAttemptAndKey() {
        h.send(request(site, 1, "r1").build());
        h.send(request(site, 1, "r2").build());

        assertThat(h.tasks()).hasSize(1);
        assertThat(h.historyKinds()).containsExactly(HistoryKind.DISPATCHED, HistoryKind.DUPLICATE_IGNORED);
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldAnswerTheCallerOfADuplicateWhenTheSiteResolves() {
        h.send(request(site, 1, "r1").build());
        h.send(request(site, 1, "r2").build());
        h.complete(h.tasks().get(0), "w1", "once");

        assertThat(h.results()).extracting(Outcome::getRequestId).containsExactly("r1", "r2");
    }

    /** A request sent again once its queue's topic is gone still joins its run: refused then, its id would get two outcomes. */
    @Test
    void shouldJoinARequestSentAgainAfterItsQueueWasDeletedToItsRun() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);
        h.deleteQueue(SiteHarness.QUEUE);
        h.send(request(site, 1, "r1").build());
        h.send(request(site, 1, "r2").build()); // a new request to the deleted queue is refused, naming it

        h.complete(task, "w1", "done");

        assertThat(h.results()).extracting(Outcome::getRequestId, Outcome::getStatus)
                .containsExactly(tuple("r2", OutcomeStatus.FAILED), tuple("r1", OutcomeStatus.COMPLETED));
    }

    @Test
    void shouldRepublishTheStoredOutcomeToARepeatedDispatchAfterResolution() {
        h.send(request(site, 1, "r1").build());
        h.complete(h.tasks().get(0), "w1", "done");
        h.results();
        h.history();

        h.send(request(site, 1, "r2").build());

        assertThat(h.tasks()).as("never run again").isEmpty();
        Outcome republished = h.results().get(0);
        assertThat(republished.getRequestId()).isEqualTo("r2");
        assertThat(republished.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
        assertThat(SiteHarness.payload("done")).isEqualTo(republished.getOutput());
        assertThat(h.historyKinds()).containsExactly(HistoryKind.OUTCOME_REPUBLISHED);
    }

    @Test
    void shouldRefuseASameAttemptWithADifferentRequestAsASiteCollision() {
        h.send(request(site, 1, "r1").build());
        h.send(request(site, 1, "r2").setIdempotencyKey("other").build());

        assertThat(h.tasks()).hasSize(1);
        Outcome refused = h.results().get(0);
        assertThat(refused.getRequestId()).isEqualTo("r2");
        assertThat(refused.getReason()).startsWith("terminal: SiteCollision");
        assertThat(h.historyKinds()).containsExactly(HistoryKind.DISPATCHED, HistoryKind.SITE_COLLISION);
    }

    @Test
    void shouldTakeOverALowerAttemptRevokingItsTokensAndStoppingItsWorker() {
        h.send(request(site, 1, "r1").build());
        ActivityTask first = h.tasks().get(0);
        h.report(first, WorkerEventKind.LEASED, "w1");
        h.history();

        h.send(request(site, 2, "r2").build());

        Outcome superseded = h.results().get(0);
        assertThat(superseded.getRequestId()).isEqualTo("r1");
        assertThat(superseded.getReason()).isEqualTo("superseded: by attempt 2");
        WorkerControl stop = h.controls().get(0);
        assertThat(stop.getWorkerId()).isEqualTo("w1");
        assertThat(stop.getAttempt()).isEqualTo(1);
        ActivityTask second = h.tasks().get(0);
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(second.getToken()).isNotEqualTo(first.getToken());
        assertThat(h.historyKinds()).containsExactly(HistoryKind.SUPERSEDED, HistoryKind.DISPATCHED);

        h.complete(first, "w1", "late");
        assertThat(h.results()).as("the superseded token completes nothing").isEmpty();
        assertThat(h.historyKinds()).containsExactly(HistoryKind.COMPLETION_REFUSED);
    }

    @Test
    void shouldRefuseALowerAttemptByName() {
        h.send(request(site, 2, "r2").build());
        h.send(request(site, 1, "r1").build());

        assertThat(h.tasks()).hasSize(1);
        Outcome refused = h.results().get(0);
        assertThat(refused.getRequestId()).isEqualTo("r1");
        assertThat(refused.getReason()).startsWith("terminal: AttemptRefused: attempt 1 is below the site's attempt 2");
        assertThat(h.historyKinds()).containsExactly(HistoryKind.DISPATCHED, HistoryKind.ATTEMPT_REFUSED);
    }

    @Test
    void shouldAnswerADispatchToAnUndeclaredQueueWithUnavailable() {
        h.send(request(site, 1, "r1").setQueue("nowhere").build());

        Outcome refused = h.results().get(0);
        assertThat(refused.getReason()).startsWith("unavailable: unknown queue 'nowhere'").contains("baton topics create --queue nowhere");
        assertThat(h.historyKinds()).containsExactly(HistoryKind.UNAVAILABLE);
    }

    @Test
    void shouldForgetAResolvedSiteAfterTheDedupeWindowSoTheSameAttemptRunsAgain() {
        h.send(request(site, 1, "r1").build());
        h.complete(h.tasks().get(0), "w1", "done");
        h.results();

        h.advance(Duration.ofSeconds(61));
        h.send(request(site, 1, "r2").build());

        assertThat(h.tasks()).hasSize(1);
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldStartANewerAttemptAfterResolutionWithoutSupersedingAnyone() {
        h.send(request(site, 1, "r1").build());
        h.fail(h.tasks().get(0), "w1", "terminal: nope");
        h.results();

        h.send(request(site, 2, "r2").build());

        assertThat(h.tasks()).extracting(ActivityTask::getAttempt).containsExactly(2);
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldDeadLetterAnInvalidDispatchAndAnswerItsCaller() {
        h.send(request(site, 0, "r1").build());

        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason()).contains("attempt must be >= 1, was 0"));
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("terminal: invalid dispatch"));
        assertThat(h.tasks()).isEmpty();
    }

    @Test
    void shouldDeadLetterCorruptBytesAndKeepProcessing() {
        h.pipeDispatch(site.toBytes(), new byte[] {9, 9, 9});
        h.pipeDispatch("no-slashes".getBytes(), new byte[] {0});
        h.send(request(site, 1, "r1").build());

        List<String> reasons = h.deadLetters().stream().map(d -> d.getReason()).toList();
        assertThat(reasons).hasSize(2);
        assertThat(reasons.get(0)).contains("WRONG_MAGIC_BYTE", "baton.dispatch");
        assertThat(reasons.get(1)).contains("bad site key");
        assertThat(h.tasks()).hasSize(1);
        assertThat(h.counter("baton_dead_letters")).isEqualTo(2.0);
    }

    @Test
    void shouldDeadLetterADispatchWhoseKeyIsNoSitesAndAnswerItsCallerUnderTheSiteItNames() {
        byte[] illFormed = "ns/wf-1/caf\u00e9".getBytes(StandardCharsets.UTF_8);
        illFormed[illFormed.length - 1] = (byte) 0xff; // the second byte of é made no continuation byte
        h.pipeDispatch(illFormed, h.serdes.dispatch().encode(BatonTopics.DISPATCH, request(site("cafe"), 1, "r-utf8").build()));
        h.pipeDispatch(new SiteKey("ns", "w".repeat(300), "a").toBytes(),
                h.serdes.dispatch().encode(BatonTopics.DISPATCH, request(site("long"), 1, "r-long").build()));
        h.pipeDispatch(new SiteKey("ns", "w".repeat(300), "b").toBytes(),
                h.serdes.dispatch().encode(BatonTopics.DISPATCH, request(site("long-reply"), 1, "r-x").setReplyKey("c".repeat(300)).build()));
        h.send(request(site, 1, "r1").build());

        assertThat(h.deadLetters()).map(d -> d.getReason()).containsExactly(
                "bad site key: site key must be well-formed UTF-8; its 13 bytes are not",
                "bad site key: site key's workflowId must have <= 256 characters, had 300",
                "bad site key: site key's workflowId must have <= 256 characters, had 300");
        assertThat(h.results()).as("the two callers that can be addressed are answered, under the sites their commands name")
                .extracting(o -> o.getRequestId(), o -> o.getSite().getActivityId(), o -> o.getReason().substring(0, 32))
                .containsExactly(tuple("r-utf8", "cafe", "terminal: invalid dispatch: bad "), tuple("r-long", "long", "terminal: invalid dispatch: bad "));
        assertThat(h.tasks()).as("only the valid dispatch runs").hasSize(1);
    }

    @Test
    void shouldDeadLetterARecordThatMakesTheProcessorThrowAndKeepGoing() {
        h.send(request(site("x"), 1, "r-bug").setQueue("explode").build());
        h.send(request(site, 1, "r1").build());

        assertThat(h.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.getReason()).contains("processing failed", "boom: a processor bug");
            assertThat(d.getSourceTopic()).isEqualTo("baton.dispatch");
            assertThat(d.getValue()).isNotNull();
        });
        assertThat(h.tasks()).as("the next record is processed").hasSize(1);
    }

    @Test
    void shouldAnswerTheCallerOfADispatchThatHitABugInsteadOfLeavingItWaiting() {
        h.send(request(site("x"), 2, "r-bug").setQueue("explode").build());

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("r-bug");
            assertThat(o.getReplyKey()).isEqualTo(CLIENT);
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("retryable: internal error").contains("baton.dispatch-0@0", "boom: a processor bug",
                    "nothing was changed");
        });
    }

    @Test
    void shouldPutAStopAfterTheTaskWhenASiteIsCancelledBeforeAnyLease() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);

        h.cancel(site);

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("cancelled:"));
        assertThat(h.taskStops()).singleElement().satisfies(stop -> {
            assertThat(stop.getStopTokenFingerprint()).isEqualTo(CompletionToken.fingerprint(task.getToken()));
            assertThat(stop.getSite()).isEqualTo(task.getSite());
            assertThat(stop.getAttempt()).isEqualTo(task.getAttempt());
            assertThat(stop.getGeneration()).isEqualTo(task.getGeneration());
            assertThat(stop.getToken()).as("a stop leases nothing").isEmpty();
            assertThat(stop.getInput()).isNull();
            assertThat(stop.getDeadlineMillis()).as("workers that do not know stops skip it as late").isZero();
        });
        assertThat(h.controls()).as("no worker to name").isEmpty();
    }

    @Test
    void shouldStopALeasedSiteByNameNotOnItsTaskTopic() {
        h.send(request(site, 1, "r1").build());
        h.report(h.tasks().get(0), WorkerEventKind.LEASED, "w1");

        h.cancel(site);

        assertThat(h.taskStops()).isEmpty();
        assertThat(h.controls()).singleElement().satisfies(c -> assertThat(c.getWorkerId()).isEqualTo("w1"));
    }

    @Test
    void shouldCancelALiveSiteStoppingItsWorker() {
        h.send(request(site, 1, "r1").build());
        h.report(h.tasks().get(0), WorkerEventKind.LEASED, "w1");

        h.cancel(site);

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("cancelled:"));
        assertThat(h.controls()).singleElement().satisfies(c -> assertThat(c.getWorkerId()).isEqualTo("w1"));
        assertThat(h.historyKinds()).endsWith(HistoryKind.CANCELLED);
    }
}
