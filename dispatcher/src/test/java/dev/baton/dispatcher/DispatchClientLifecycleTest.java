package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.NOW;
import static dev.baton.dispatcher.DispatchClientHarness.WAIT;
import static dev.baton.dispatcher.DispatchClientHarness.failureOf;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.dispatcher.internals.ResultsMockConsumer;
import dev.baton.schemas.SiteKey;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link DispatchClient} at its limits: the pending bound, close, and a start without the results topic. */
class DispatchClientLifecycleTest {

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
        CompletableFuture<Outcome> first = harness.client.dispatch(request().build());
        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.command(0).getRequestId(), CLIENT_ID).build());
        assertThat(first).succeedsWithin(WAIT);

        CompletableFuture<Outcome> second = harness.client.dispatch(request().build());

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
        CompletableFuture<Outcome> future = start().client.dispatch(request().build());

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
        CompletableFuture<Outcome> future = start().client.dispatch(request().build());
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
}
