package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.payload;
import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.retries;
import static dev.baton.streams.topology.SiteHarness.site;
import static dev.baton.streams.topology.SiteHarness.timeouts;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.baton.events.ActivityTask;
import dev.baton.events.Failure;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Heartbeat checkpoints handed to the next generation or attempt, and structured failures carried to callers and history. */
class CheckpointAndFailureRulesTest {

    private static final Failure DECLINED = new Failure("CardDeclined", "card declined", payload("{\"code\":51}"),
            "at Charge.run(Charge.java:12)\n", new Failure("java.io.IOException", "gateway said 402", null, "", null));

    private final SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void shouldHandTheLastHeartbeatDetailsToTheNextGenerationAfterATransportLoss() {
        h.send(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        ActivityTask first = h.tasks().get(0);
        assertThat(first.getLastHeartbeatDetails()).as("a new run has nothing to resume").isNull();
        h.report(heartbeat(first, "row 10"));
        h.report(heartbeat(first, "row 20"));
        h.report(heartbeat(first, null)); // no details: the checkpoint stays

        h.advance(Duration.ofMillis(1_200));

        ActivityTask second = h.tasks().get(0);
        assertThat(second.getGeneration()).isEqualTo(2);
        assertThat(second.getLastHeartbeatDetails()).isEqualTo(payload("row 20"));
    }

    @Test
    void shouldHandTheLastHeartbeatDetailsToThePolicysNextAttempt() {
        h.send(request(site, 1, "r1").setRetryPolicy(retries(3, 100)).build());
        ActivityTask first = h.tasks().get(0);
        h.report(heartbeat(first, "page 7"));
        h.fail(first, "w1", "retryable: rate limited");

        h.advance(Duration.ofMillis(300));

        ActivityTask next = h.tasks().get(0);
        assertThat(next.getAttempt()).isEqualTo(2);
        assertThat(next.getLastHeartbeatDetails()).isEqualTo(payload("page 7"));
    }

    @Test
    void shouldHandTheDetailsAFailureReportCarriesToThePolicysNextAttempt() {
        h.send(request(site, 1, "r1").setRetryPolicy(retries(3, 100)).build());
        ActivityTask first = h.tasks().get(0);
        // The handler checkpointed and threw before any heartbeat went out: the failure report carries the details.
        h.report(WorkerEvent.newBuilder(failed(first, "retryable: transient")).setHeartbeatDetails(payload("progress-50%").getData())
                .setHeartbeatContentType("text/plain").build());

        h.advance(Duration.ofMillis(300));

        ActivityTask next = h.tasks().get(0);
        assertThat(next.getAttempt()).isEqualTo(2);
        assertThat(next.getLastHeartbeatDetails()).isEqualTo(payload("progress-50%"));
    }

    @Test
    void shouldHandTheDetailsAParkReportCarriesToTheNextGeneration() {
        h.send(request(site, 1, "r1").build());
        ActivityTask first = h.tasks().get(0);
        h.report(WorkerEvent.newBuilder(heartbeat(first, "row 99")).setKind(WorkerEventKind.PARKED).build());

        assertThat(h.tasks()).singleElement().satisfies(second -> {
            assertThat(second.getGeneration()).isEqualTo(2);
            assertThat(second.getLastHeartbeatDetails()).isEqualTo(payload("row 99"));
        });
    }

    @Test
    void shouldIgnoreTheDetailsOfAHeartbeatWhoseTokenIsNoLongerCurrent() {
        h.send(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        ActivityTask first = h.tasks().get(0);
        h.report(heartbeat(first, "mine"));
        h.advance(Duration.ofMillis(1_200));
        ActivityTask second = h.tasks().get(0);
        h.report(heartbeat(first, "zombie"));
        h.report(WorkerEvent.newBuilder(heartbeat(second, null)).setKind(WorkerEventKind.PARKED).build());

        assertThat(h.tasks()).singleElement().satisfies(third -> {
            assertThat(third.getGeneration()).isEqualTo(3);
            assertThat(third.getLastHeartbeatDetails()).isEqualTo(payload("mine"));
        });
    }

    @Test
    void shouldCarryAWorkersStructuredFailureToTheCallerAndHistory() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);
        h.history();

        h.report(failed(task, "terminal: card declined"));

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).isEqualTo("terminal: card declined");
            assertThat(o.getFailure()).isEqualTo(DECLINED);
        });
        assertThat(h.history()).filteredOn(e -> e.getKind() == HistoryKind.FAILED).singleElement()
                .satisfies(e -> assertThat(e.getFailure()).isEqualTo(DECLINED));
    }

    @Test
    void shouldGiveTheStoredFailureToACallerWhoAsksAgainWithinTheDedupeWindow() {
        h.send(request(site, 1, "r1").build());
        h.report(failed(h.tasks().get(0), "terminal: card declined"));
        h.results();

        h.send(request(site, 1, "r2").build());

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("r2");
            assertThat(o.getFailure()).isEqualTo(DECLINED);
        });
    }

    @Test
    void shouldRecordARetriedFailureInHistoryAndNotLeakItIntoTheNextAttemptsOutcome() {
        h.send(request(site, 1, "r1").setRetryPolicy(retries(3, 100)).build());
        h.report(failed(h.tasks().get(0), "retryable: gateway down"));
        assertThat(h.history()).filteredOn(e -> e.getKind() == HistoryKind.FAILED).singleElement()
                .satisfies(e -> assertThat(e.getFailure()).isEqualTo(DECLINED));
        h.advance(Duration.ofMillis(300));

        h.complete(h.tasks().get(0), "w2", "paid");

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
            assertThat(o.getFailure()).isNull();
        });
    }

    @Test
    void shouldDeadLetterAHeartbeatWhoseDetailsExceedTheirShareOfTheRow() {
        h.send(request(site, 1, "r1").build());
        ActivityTask task = h.tasks().get(0);

        h.report(WorkerEvent.newBuilder(heartbeat(task, null)).setHeartbeatDetails(java.nio.ByteBuffer.allocate(65_537)).build());

        assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.getReason())
                .contains("heartbeatDetails must be <= 65536 bytes, was 65537"));
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getHeartbeatDetails()).isNull());
    }

    private static WorkerEvent heartbeat(ActivityTask task, String details) {
        return WorkerEvent.newBuilder().setKind(WorkerEventKind.HEARTBEAT).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId("w1")
                .setHeartbeatDetails(details == null ? null : payload(details).getData()).setHeartbeatContentType(details == null ? null : "text/plain")
                .setAtMillis(0L).build();
    }

    private static WorkerEvent failed(ActivityTask task, String reason) {
        return WorkerEvent.newBuilder().setKind(WorkerEventKind.FAILED).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId("w1").setReason(reason).setFailure(DECLINED)
                .setAtMillis(0L).build();
    }
}
