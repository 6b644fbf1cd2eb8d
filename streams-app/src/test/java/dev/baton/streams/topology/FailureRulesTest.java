package dev.baton.streams.topology;

import static dev.baton.streams.topology.SiteHarness.request;
import static dev.baton.streams.topology.SiteHarness.retries;
import static dev.baton.streams.topology.SiteHarness.site;
import static dev.baton.streams.topology.SiteHarness.timeouts;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.RetryPolicy;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.config.QueueTimeouts;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Deadlines, transport loss, parks, retries, timeouts and the census, driven by the wall clock. */
class FailureRulesTest {

    private SiteHarness h = new SiteHarness();
    private final SiteKey site = site("1");

    @AfterEach
    void close() {
        h.close();
    }

    private ActivityTask leased(DispatchCommand cmd) {
        h.send(cmd);
        ActivityTask task = h.tasks().get(0);
        h.report(task, WorkerEventKind.LEASED, "w1");
        h.history();
        return task;
    }

    @Test
    void shouldRedeliverTheSameAttemptAsANewGenerationWhenTheHeartbeatDeadlinePasses() {
        ActivityTask first = leased(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());

        h.advance(Duration.ofMillis(1_200));

        assertThat(h.history()).singleElement().satisfies(e -> {
            assertThat(e.getKind()).isEqualTo(HistoryKind.TRANSPORT_LOST);
            assertThat(e.getReason()).startsWith("lost:").contains("loss 1 of budget 3");
        });
        ActivityTask second = h.tasks().get(0);
        assertThat(second.getAttempt()).as("worker loss never consumes an attempt").isEqualTo(1);
        assertThat(second.getGeneration()).isEqualTo(2);
        assertThat(second.getToken()).isNotEqualTo(first.getToken());
        assertThat(h.results()).as("the caller is not woken").isEmpty();
        assertThat(h.controls()).singleElement().satisfies(c -> assertThat(c.getWorkerId()).isEqualTo("w1"));

        h.complete(first, "w1", "zombie");
        assertThat(h.historyKinds()).containsExactly(HistoryKind.COMPLETION_REFUSED);
        h.complete(second, "w2", "fresh");
        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("fresh")));
    }

    @Test
    void shouldKeepALeaseAliveWhileHeartbeatsArrive() {
        ActivityTask task = leased(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        for (int i = 0; i < 5; i++) {
            h.advance(Duration.ofMillis(700));
            h.report(task, WorkerEventKind.HEARTBEAT, "w1");
        }
        assertThat(h.historyKinds()).doesNotContain(HistoryKind.TRANSPORT_LOST);
        assertThat(h.tasks()).isEmpty();
    }

    /**
     * A heartbeat deadline means "no heartbeat was written in time", so it fires only once the task
     * has read every report written before it: the task writes a clock tick into its own
     * worker-events partition and fires when it reads the tick back. Here the tick is read at once
     * (nothing is behind); HeartbeatBacklogIT shows a lease kept while heartbeats are stuck behind a
     * hanging transaction on a real broker.
     */
    @Test
    void shouldDeclareALeaseLostOnlyAfterReadingItsOwnClockTick() {
        leased(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        h.clockTicks();

        h.advance(Duration.ofMillis(1_100));

        assertThat(h.clockTicks()).as("one tick, written once the deadline passed").hasSize(1);
        assertThat(h.historyKinds()).contains(HistoryKind.TRANSPORT_LOST);
    }

    @Test
    void shouldFailTransportExhaustedOnceTheBudgetIsSpent() {
        h.close();
        h = new SiteHarness(1);
        leased(request(site, 1, "r1").setTimeouts(timeouts(null, null, null, 1_000L)).build());
        h.advance(Duration.ofMillis(1_200));
        ActivityTask second = h.tasks().get(0);
        h.report(second, WorkerEventKind.LEASED, "w2");

        h.advance(Duration.ofMillis(1_200));

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(o.getReason()).startsWith("transport-exhausted:").contains("budget of 1");
            assertThat(o.getAttempt()).isEqualTo(1);
        });
        assertThat(h.tasks()).isEmpty();
    }

    @Test
    void shouldRepublishAParkedGenerationWithoutWakingTheCallerOrConsumingARetry() {
        ActivityTask first = leased(request(site, 1, "r1").build());

        h.report(first, WorkerEventKind.PARKED, "w1");

        ActivityTask again = h.tasks().get(0);
        assertThat(again.getAttempt()).isEqualTo(1);
        assertThat(again.getGeneration()).isEqualTo(2);
        assertThat(h.results()).isEmpty();
        assertThat(h.historyKinds()).containsExactly(HistoryKind.PARKED).doesNotContain(HistoryKind.FAILED);
        assertThat(h.counter("baton_parks")).isEqualTo(1.0);
    }

    @Test
    void shouldRetryARetryableFailureAfterItsBackoffAsTheNextAttemptForTheSameCaller() {
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(retries(3, 500)).build());

        h.fail(first, "w1", "retryable: flaky");

        assertThat(h.historyKinds()).containsExactly(HistoryKind.FAILED, HistoryKind.RETRY_SCHEDULED);
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getState()).isEqualTo(SiteStatus.BACKOFF));
        h.advance(Duration.ofMillis(300));
        assertThat(h.tasks()).as("not before the backoff").isEmpty();
        h.advance(Duration.ofMillis(300));
        ActivityTask second = h.tasks().get(0);
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(h.results()).as("the caller is not woken by a retried failure").isEmpty();

        h.complete(second, "w2", "ok");
        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getRequestId()).isEqualTo("r1");
            assertThat(o.getAttempt()).isEqualTo(2);
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
        });
    }

    @Test
    void shouldFailWhenThePolicyHasNoAttemptsLeft() {
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(retries(1, 500)).build());
        h.fail(first, "w1", "retryable: flaky");

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).isEqualTo("retryable: flaky"));
        h.advance(Duration.ofSeconds(5));
        assertThat(h.tasks()).isEmpty();
    }

    @Test
    void shouldNotRetryAFailureWithANonRetryablePrefix() {
        RetryPolicy policy = new RetryPolicy(100L, 2.0, 1_000L, 5, List.of("card-declined"));
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(policy).build());
        h.fail(first, "w1", "retryable: card-declined by issuer");

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("retryable: card-declined"));
    }

    @Test
    void shouldNeverRetryATerminalFailure() {
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(retries(5, 100)).build());
        h.fail(first, "w1", "terminal: nope");

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).isEqualTo("terminal: nope"));
        h.advance(Duration.ofSeconds(5));
        assertThat(h.tasks()).isEmpty();
    }

    @Test
    void shouldReadAFailureWithoutAPrefixAsRetryable() {
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(retries(1, 100)).build());
        h.fail(first, "w1", "NullPointerException: x");

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).isEqualTo("retryable: NullPointerException: x"));
    }

    @Test
    void shouldTimeOutAnAttemptAfterStartToCloseAndRetryIt() {
        leased(request(site, 1, "r1").setTimeouts(timeouts(null, 1_000L, null, null)).setRetryPolicy(retries(2, 100)).build());

        h.advance(Duration.ofMillis(1_000)); // the backoff (100 ms) has not passed yet

        assertThat(h.history()).extracting(e -> e.getKind()).containsExactly(HistoryKind.TIMED_OUT, HistoryKind.RETRY_SCHEDULED);
        assertThat(h.controls()).singleElement().satisfies(c -> assertThat(c.getReason()).startsWith("retryable: start-to-close timeout"));
        h.advance(Duration.ofMillis(200));
        assertThat(h.tasks()).singleElement().satisfies(t -> assertThat(t.getAttempt()).isEqualTo(2));
    }

    @Test
    void shouldFailUnavailableUnservedAfterScheduleToStartWhenNoWorkerServesTheQueue() {
        h.send(request(site, 1, "r1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason())
                .startsWith("unavailable: unserved: no live worker serves queue 'payments'"));
    }

    @Test
    void shouldApplyTheQueuesDefaultTimeoutWhenTheActivitySetsNone() {
        h.send(request(site, 1, "r1").setQueue("mail").build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason()).startsWith("unavailable: unserved"));
    }

    @Test
    void shouldLetTheActivitysOwnTimeoutWinOverItsQueuesDefault() {
        h.send(request(site, 1, "r1").setQueue("mail").setTimeouts(timeouts(5_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));
        assertThat(h.results()).isEmpty();
        h.advance(Duration.ofMillis(4_000));
        assertThat(h.results()).hasSize(1);
    }

    @Test
    void shouldRefuseAnUnreadablePerQueueKeyByName() {
        Assertions.assertThatThrownBy(() -> QueueTimeouts.from(
                Map.of("queue.mail.schedule.to.start.ms", "soon"))).hasMessageContaining("queue.mail.schedule.to.start.ms must be a number");
    }

    @Test
    void shouldFailUnavailableSaturatedWhenWorkersAreLiveButNoneTookTheTask() {
        h.registerWorker("w1", false, "payments");
        h.send(request(site, 1, "r1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_100));

        assertThat(h.results()).singleElement().satisfies(o -> assertThat(o.getReason())
                .startsWith("unavailable: saturated: 1 live worker(s) serve queue 'payments'"));
    }

    @Test
    void shouldNotTimeOutScheduleToStartOnceLeased() {
        leased(request(site, 1, "r1").setTimeouts(timeouts(1_000L, null, null, null)).build());
        h.advance(Duration.ofMillis(1_500));
        assertThat(h.results()).isEmpty();
    }

    @Test
    void shouldFailTerminalAfterScheduleToCloseWhateverAttemptIsRunning() {
        ActivityTask first = leased(request(site, 1, "r1").setTimeouts(timeouts(null, null, 2_000L, null))
                .setRetryPolicy(retries(5, 500)).build());
        h.fail(first, "w1", "retryable: flaky");
        h.advance(Duration.ofMillis(600));
        ActivityTask second = h.tasks().get(0);
        h.report(second, WorkerEventKind.LEASED, "w2");

        h.advance(Duration.ofMillis(1_500));

        assertThat(h.results()).singleElement().satisfies(o -> {
            assertThat(o.getReason()).startsWith("terminal: schedule-to-close timeout");
            assertThat(o.getAttempt()).isEqualTo(2);
        });
        assertThat(h.controls()).extracting(c -> c.getWorkerId()).contains("w2");
    }

    @Test
    void shouldMarkASiteUnservedWhileNoLiveWorkerServesItsQueue() {
        h.send(request(site, 1, "r1").build());
        assertThat(h.siteState(site)).hasValueSatisfying(s -> assertThat(s.getState()).isEqualTo(SiteStatus.UNSERVED));
        assertThat(h.meters.get("baton_unserved_queues").gauge().value()).isEqualTo(1.0);

        h.registerWorker("w1", false, "payments");
        h.send(request(site("2"), 1, "r2").build());
        assertThat(h.siteState(site("2"))).hasValueSatisfying(s -> assertThat(s.getState()).isEqualTo(SiteStatus.PENDING));
        assertThat(h.meters.get("baton_unserved_queues").gauge().value()).isEqualTo(0.0);
    }

    @Test
    void shouldNotCountDrainingWithdrawnOrStaleWorkersInTheCensus() {
        h.registerWorker("draining", true, "payments");
        h.send(request(site("a"), 1, "ra").build());
        assertThat(h.siteState(site("a")).orElseThrow().getState()).isEqualTo(SiteStatus.UNSERVED);

        h.registerWorker("w1", false, "payments");
        h.withdrawWorker("w1");
        h.send(request(site("b"), 1, "rb").build());
        assertThat(h.siteState(site("b")).orElseThrow().getState()).isEqualTo(SiteStatus.UNSERVED);

        h.registerWorker("w2", false, "payments");
        h.advance(Duration.ofSeconds(16));
        h.send(request(site("c"), 1, "rc").build());
        assertThat(h.siteState(site("c")).orElseThrow().getState()).as("registration older than worker.stale.ms").isEqualTo(SiteStatus.UNSERVED);
    }

    @Test
    void shouldAnswerEveryCallerOnceThroughRetriesAndRedeliveries() {
        ActivityTask first = leased(request(site, 1, "r1").setRetryPolicy(retries(3, 100))
                .setTimeouts(timeouts(null, null, null, 1_000L)).build());
        h.report(first, WorkerEventKind.PARKED, "w1");
        ActivityTask second = h.tasks().get(0);
        h.report(second, WorkerEventKind.LEASED, "w2");
        h.advance(Duration.ofMillis(1_200));
        ActivityTask third = h.tasks().get(0);
        h.fail(third, "w3", "retryable: once");
        h.advance(Duration.ofMillis(200));
        ActivityTask fourth = h.tasks().get(0);
        h.complete(fourth, "w4", "done");

        List<Outcome> outcomes = h.results();
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.getAttempt()).as("one retry consumed by the failure; park and loss consumed none").isEqualTo(2);
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
        });
    }
}
