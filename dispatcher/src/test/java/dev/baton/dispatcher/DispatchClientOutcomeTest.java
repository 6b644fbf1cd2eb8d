package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.OWN_PARTITION;
import static dev.baton.dispatcher.DispatchClientHarness.WAIT;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How outcomes on {@code baton.results} reach the caller of {@link DispatchClient#dispatch} or the
 * client's {@link UnmatchedResultHandler} (read through a {@code MockConsumer}).
 */
class DispatchClientOutcomeTest {

    private DispatchClientHarness harness;

    private DispatchClientHarness start(Map<String, ?> settings) {
        harness = DispatchClientHarness.start(settings);
        return harness;
    }

    private DispatchClientHarness start() {
        return start(Map.of());
    }

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    // How outcomes reach the caller

    @Test
    void shouldReadOnlyTheResultsPartitionItsClientIdMapsTo() {
        start();

        TopicPartition own = new TopicPartition(BatonTopics.RESULTS, OWN_PARTITION);
        // the group's one member is assigned every partition; it reads its own and leaves the others paused
        assertThat(harness.consumer.assignment()).contains(own);
        assertThat(harness.consumer.paused()).doesNotContain(own).hasSize(harness.consumer.assignment().size() - 1);
    }

    @Test
    void shouldCompleteTheFutureWhenTheOutcomeWithItsRequestIdArrives() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        String requestId = harness.onlyCommand().getRequestId();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).build());

        assertThat(future).succeedsWithin(WAIT).satisfies(o -> {
            assertThat(o.requestId()).isEqualTo(requestId);
            assertThat(o.site()).isEqualTo(new SiteKey("payments", "order-42", "3"));
            assertThat(o.completed()).isTrue();
            assertThat(o.outputAsString()).isEqualTo("ok");
        });
        assertThat(harness.client.pendingCount()).isZero();
        assertThat(harness.unmatched).isEmpty();
    }

    @Test
    void shouldCompleteTheFutureWithAFailedOutcomeAndItsReason() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());

        harness.deliver(CLIENT_ID, OutcomeEvents.failed(harness.onlyCommand().getRequestId(), CLIENT_ID, "terminal: card declined").build());

        assertThat(future).succeedsWithin(WAIT).satisfies(o -> {
            assertThat(o.completed()).isFalse();
            assertThat(o.reasonPrefix()).isEqualTo("terminal:");
        });
    }

    @Test
    void shouldCompleteEachFutureWithTheOutcomeOfItsOwnRequest() {
        start();
        CompletableFuture<ActivityOutcome> first = harness.client.dispatch(request().build());
        CompletableFuture<ActivityOutcome> second = harness.client.dispatch(request().site("payments", "order-43", "1").build());

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(1).getRequestId(), CLIENT_ID).setWorkerId("w-second").build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(0).getRequestId(), CLIENT_ID).setWorkerId("w-first").build());

        assertThat(first).succeedsWithin(WAIT).extracting(ActivityOutcome::workerId).isEqualTo("w-first");
        assertThat(second).succeedsWithin(WAIT).extracting(ActivityOutcome::workerId).isEqualTo("w-second");
    }

    @Test
    void shouldIgnoreAResultKeyedForAnotherClientEvenWithThisRequestId() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        String neighbour = OutcomeEvents.neighbourOf(CLIENT_ID, DispatchClientHarness.PARTITIONS);

        harness.deliver(neighbour, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), neighbour).build());
        harness.awaitResultsHandled();

        assertThat(future).isNotDone();
        assertThat(harness.unmatched).isEmpty();
    }

    @Test
    void shouldHandAnOutcomeWithNoPendingFutureToTheUnmatchedHandler() {
        start();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed("r-of-an-earlier-incarnation", CLIENT_ID).build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(harness.unmatched).extracting(ActivityOutcome::requestId).containsExactly("r-of-an-earlier-incarnation");
    }

    @Test
    void shouldHandAnOutcomeFlaggedUnmatchedToTheHandlerAndLeaveTheFutureWaiting() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        String requestId = harness.onlyCommand().getRequestId();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setUnmatched(true).build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(harness.unmatched).singleElement().satisfies(o -> {
            assertThat(o.requestId()).isEqualTo(requestId);
            assertThat(o.unmatched()).isTrue();
        });
        assertThat(future).isNotDone();
        assertThat(harness.client.pendingCount()).isEqualTo(1);
    }

    @Test
    void shouldDropAnIdenticalCopyOfADeliveredOutcome() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        String requestId = harness.onlyCommand().getRequestId();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setWorkerId("w-1").build());
        // The same outcome again (another worker id and time: a re-emission, not a new fact), then a marker.
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setWorkerId("w-2").build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setUnmatched(true).setWorkerId("marker").build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(future).isCompleted().succeedsWithin(Duration.ZERO).extracting(ActivityOutcome::workerId).isEqualTo("w-1");
        assertThat(harness.unmatched).singleElement().extracting(ActivityOutcome::workerId).isEqualTo("marker");
    }

    @Test
    void shouldHandADifferentSecondOutcomeToTheUnmatchedHandlerAndKeepTheFirst() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        String requestId = harness.onlyCommand().getRequestId();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setWorkerId("w-1").build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).setAttempt(2).setWorkerId("w-2").build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(future).isCompleted().succeedsWithin(Duration.ZERO).extracting(ActivityOutcome::workerId).isEqualTo("w-1");
        assertThat(harness.unmatched).singleElement().extracting(ActivityOutcome::workerId).isEqualTo("w-2");
    }

    @Test
    void shouldKeepCompletingFuturesAfterADuplicateOutcome() {
        start().client.dispatch(request().build());
        String requestId = harness.command(0).getRequestId();
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).build());

        CompletableFuture<ActivityOutcome> next = harness.client.dispatch(request().build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(1).getRequestId(), CLIENT_ID).build());

        assertThat(next).succeedsWithin(WAIT);
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldRecordTheTimeFromDispatchToOutcome() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), CLIENT_ID).build());

        assertThat(future).succeedsWithin(WAIT);
        await().atMost(WAIT).untilAsserted(() -> {
            Timer timer = harness.meters.find("baton_dispatch_latency").timer();
            assertThat(timer).isNotNull();
            assertThat(timer.count()).isEqualTo(1);
        });
    }

    // Dispatch timeouts

    @Test
    void shouldFailTheFutureWithATimeoutAfterDispatchTimeoutMs() {
        start(Map.of(DispatchClientConfig.DISPATCH_TIMEOUT_MS_CONFIG, "50"));

        CompletableFuture<ActivityOutcome> future = harness.client.dispatch(request().build());

        assertThat(future).failsWithin(WAIT).withThrowableOfType(ExecutionException.class).withCauseInstanceOf(TimeoutException.class);
        await().atMost(WAIT).until(() -> harness.client.pendingCount() == 0);
    }

    @Test
    void shouldHandTheLateOutcomeOfATimedOutDispatchToTheUnmatchedHandler() {
        start(Map.of(DispatchClientConfig.DISPATCH_TIMEOUT_MS_CONFIG, "50"));
        CompletableFuture<ActivityOutcome> future = harness.client.dispatch(request().build());
        assertThat(future).failsWithin(WAIT);
        await().atMost(WAIT).until(() -> harness.client.pendingCount() == 0);

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), CLIENT_ID).build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(harness.unmatched).extracting(ActivityOutcome::requestId).containsExactly(harness.onlyCommand().getRequestId());
    }
}
