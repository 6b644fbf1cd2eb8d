package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.NOW;
import static dev.baton.dispatcher.DispatchClientHarness.WAIT;
import static dev.baton.dispatcher.DispatchClientHarness.failureOf;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.dispatcher.internals.ResultsMockConsumer;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link DispatchClient} at its limits: the pending bound, close, and a start that fails (nothing is left open). */
class DispatchClientLifecycleTest {

    private DispatchClientHarness harness;
    // For the tests of a start that fails, which build the client themselves.
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final ResultsMockConsumer consumer = new ResultsMockConsumer(DispatchClientHarness.PARTITIONS);

    private DispatchClientHarness start(Map<String, ?> settings) {
        harness = DispatchClientHarness.start(settings);
        return harness;
    }

    private DispatchClientHarness start() {
        return start(Map.of());
    }

    /** A client with its own id (so its listener thread is told apart) on this test's producer and consumer. */
    private DispatchClient startClient(String clientId, Duration startTimeout) {
        DispatchClientConfig config = new DispatchClientConfig(DispatchClientHarness.configs("mem://" + UUID.randomUUID(),
                Map.of(DispatchClientConfig.CLIENT_ID_CONFIG, clientId, DispatchClientConfig.CLIENT_ID_WAIT_MS_CONFIG, "0")));
        return new DispatchClient(config, UnmatchedResultHandler.IGNORE, Clock.fixed(NOW, ZoneOffset.UTC), new SimpleMeterRegistry(),
                c -> producer, c -> consumer, startTimeout);
    }

    private static boolean listenerThreadAlive(String clientId) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("baton-results-" + clientId));
    }

    private void assertNothingLeftOpen(String clientId) {
        assertThat(producer.closed()).isTrue();
        assertThat(consumer.closed()).isTrue();
        await().atMost(WAIT).until(() -> !listenerThreadAlive(clientId));
    }

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    // The pending limit

    @Test
    void shouldFailFastWithoutSendingWhenMaxPendingDispatchesAreWaiting() {
        start(Map.of(DispatchClientConfig.MAX_PENDING_CONFIG, "2"));
        harness.client.dispatch(request().build());
        harness.client.dispatch(request().build());

        assertThatThrownBy(() -> harness.client.dispatch(request().build()))
                .isInstanceOf(PendingLimitExceededException.class)
                .hasMessageStartingWith("max.pending is 2 and 2 dispatches are waiting");
        assertThat(harness.sent()).hasSize(2);
    }

    @Test
    void shouldAcceptADispatchAgainOnceAWaitingOneResolves() {
        start(Map.of(DispatchClientConfig.MAX_PENDING_CONFIG, "1"));
        CompletableFuture<ActivityOutcome> first = harness.client.dispatch(request().build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(0).getRequestId(), CLIENT_ID).build());
        assertThat(first).succeedsWithin(WAIT);

        CompletableFuture<ActivityOutcome> second = harness.client.dispatch(request().build());

        assertThat(second).isNotDone();
        assertThat(harness.sent()).hasSize(2);
    }

    @Test
    void shouldNotCountFireAndForgetSendsAgainstMaxPending() {
        start(Map.of(DispatchClientConfig.MAX_PENDING_CONFIG, "1"));
        harness.client.send(request().build());
        harness.client.send(request().build());

        assertThat(harness.client.dispatch(request().build())).isNotDone();
        assertThat(harness.sent()).hasSize(3);
    }

    // Close

    @Test
    void shouldFailPendingFuturesWithDispatchClientClosedExceptionOnClose() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());

        harness.client.close();

        Throwable failure = failureOf(future);
        assertThat(failure).isInstanceOf(DispatchClientClosedException.class)
                .hasMessageStartingWith("client billing-1 closed before the outcome arrived");
        assertThat(((DispatchClientClosedException) failure).requestId()).isEqualTo(harness.onlyCommand().getRequestId());
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldRefuseDispatchesAfterCloseWithoutSendingAnything() {
        start().client.close();

        assertThatThrownBy(() -> harness.client.dispatch(request().build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("DispatchClient billing-1 is closed");
        assertThat(harness.sent()).isEmpty();
    }

    @Test
    void shouldRefuseSendsAfterClose() {
        start().client.close();

        assertThatThrownBy(() -> harness.client.send(request().build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("DispatchClient billing-1 is closed");
    }

    @Test
    void shouldRefuseCancelsAfterClose() {
        start().client.close();

        assertThatThrownBy(() -> harness.client.cancel(new SiteKey("payments", "order-42", "3")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("DispatchClient billing-1 is closed");
    }

    @Test
    void shouldCloseItsProducerAndConsumerOnClose() {
        start().client.close();

        assertThat(harness.producer.closed()).isTrue();
        assertThat(harness.consumer.closed()).isTrue();
    }

    @Test
    void shouldIgnoreASecondClose() {
        CompletableFuture<ActivityOutcome> future = start().client.dispatch(request().build());
        harness.client.close();

        harness.client.close();

        assertThat(failureOf(future)).isInstanceOf(DispatchClientClosedException.class);
        assertThat(harness.producer.closed()).isTrue();
    }

    // Start

    @Test
    void shouldRefuseToStartWithoutTheResultsTopicAndCloseWhatItOpened() {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        ResultsMockConsumer consumer = new ResultsMockConsumer(0);
        DispatchClientConfig config = new DispatchClientConfig(DispatchClientHarness.configs("mem://" + UUID.randomUUID(), Map.of()));

        assertThatThrownBy(() -> new DispatchClient(config, UnmatchedResultHandler.IGNORE, Clock.fixed(NOW, ZoneOffset.UTC),
                new SimpleMeterRegistry(), c -> producer, c -> consumer))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("baton.results does not exist; create Baton's topics with `baton topics create`");
        assertThat(producer.closed()).isTrue();
        assertThat(consumer.closed()).isTrue();
    }

    @Test
    void shouldRefuseToStartWhenTheResultsListenerStopsBeforeItIsPositionedAndCloseWhatItOpened() {
        consumer.setPositionException(new TopicAuthorizationException(Set.of(BatonTopics.RESULTS)));

        assertThatThrownBy(() -> startClient("billing-refused", WAIT))
                .isInstanceOf(ResultListenerStoppedException.class)
                .hasMessageStartingWith("the results listener of client billing-refused stopped: TopicAuthorizationException:"
                        + " Not authorized to access topics: [baton.results]; outcomes for its requests stay on baton.results");
        assertNothingLeftOpen("billing-refused");
    }

    @Test
    void shouldRefuseToStartNamingTheClientIdWhileAnotherLiveClientHoldsItAndCloseWhatItOpened() {
        consumer.setPollException(new UnreleasedInstanceIdException("Static member m-2 with instance id dispatch-client cannot join"));

        assertThatThrownBy(() -> startClient("billing-twin", WAIT))
                .isInstanceOf(ClientIdInUseException.class)
                .hasMessageStartingWith("baton.client.id must be unique among live DispatchClients; 'billing-twin' is held by another"
                        + " live client (the member of group baton-dispatcher-billing-twin)")
                .hasMessageContaining("Give this client another baton.client.id, or close the other one first")
                .satisfies(e -> assertThat(((ClientIdInUseException) e).clientId()).isEqualTo("billing-twin"));
        assertNothingLeftOpen("billing-twin");
    }

    @Test
    void shouldCloseWhatItOpenedWhenTheResultsListenerIsNotPositionedInTime() {
        consumer.holdPosition();

        assertThatThrownBy(() -> startClient("billing-slow", Duration.ofMillis(50)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("result listener for billing-slow not positioned on baton.results-");
        assertNothingLeftOpen("billing-slow");
    }

    @Test
    void shouldCloseWhatItOpenedWhenInterruptedWhileStarting() {
        consumer.holdPosition();
        Thread.currentThread().interrupt(); // the wait for the listener's position sees it at once

        Throwable thrown = catchThrowable(() -> startClient("billing-interrupted", WAIT));
        boolean interruptKept = Thread.interrupted(); // and cleared, for the tests that follow

        assertThat(thrown).isInstanceOf(DispatchException.class)
                .hasMessageStartingWith("interrupted while starting client billing-interrupted");
        assertThat(interruptKept).isTrue();
        assertNothingLeftOpen("billing-interrupted");
    }
}
