package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.failureOf;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link DispatchClient} after its results listener stopped on an error: every caller still gets exactly one outcome. */
class DispatchClientListenerStoppedTest {

    private static final String STOPPED = "the results listener of client billing-1 stopped: TopicAuthorizationException:"
            + " Not authorized to access topics: [baton.results]; outcomes for its requests stay on baton.results and reach"
            + " the UnmatchedResultHandler of a new client with the same baton.client.id";

    private final DispatchClientHarness harness = DispatchClientHarness.start();

    @AfterEach
    void close() {
        harness.close();
    }

    /** The listener's next poll fails as a consumer's does when its read permission on the topic is revoked. */
    private void stopListener() {
        harness.consumer.setPollException(new TopicAuthorizationException(Set.of(BatonTopics.RESULTS)));
    }

    /** Stops the listener and waits until it has failed a waiting dispatch: from then on the client knows. */
    private void stopListenerAndWait() {
        CompletableFuture<ActivityOutcome> witness = harness.client.dispatch(request().build());
        stopListener();
        assertThat(failureOf(witness)).isInstanceOf(ResultListenerStoppedException.class);
    }

    @Test
    void shouldFailEveryWaitingFutureWithResultListenerStoppedExceptionNamingItsRequestWhenTheListenerStops() {
        CompletableFuture<ActivityOutcome> first = harness.client.dispatch(request().build());
        CompletableFuture<ActivityOutcome> second = harness.client.dispatch(request().build());

        stopListener();

        assertThat(failureOf(first)).isInstanceOf(ResultListenerStoppedException.class).hasMessage(STOPPED)
                .extracting(e -> ((ResultListenerStoppedException) e).requestId()).isEqualTo(harness.command(0).getRequestId());
        assertThat(failureOf(second)).isInstanceOf(ResultListenerStoppedException.class).hasMessage(STOPPED)
                .extracting(e -> ((ResultListenerStoppedException) e).requestId()).isEqualTo(harness.command(1).getRequestId());
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldRefuseDispatchesWithoutSendingOnceTheListenerStopped() {
        stopListenerAndWait();

        assertThatThrownBy(() -> harness.client.dispatch(request().build()))
                .isInstanceOf(ResultListenerStoppedException.class)
                .hasMessage(STOPPED);
        assertThat(harness.sent()).hasSize(1); // the witness only
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldRefuseSendsWithoutSendingOnceTheListenerStopped() {
        stopListenerAndWait();

        assertThatThrownBy(() -> harness.client.send(request().build()))
                .isInstanceOf(ResultListenerStoppedException.class)
                .hasMessage(STOPPED);
        assertThat(harness.sent()).hasSize(1);
    }

    @Test
    void shouldRefuseCancelsWithoutSendingOnceTheListenerStopped() {
        stopListenerAndWait();

        assertThatThrownBy(() -> harness.client.cancel(new SiteKey("payments", "order-42", "3")))
                .isInstanceOf(ResultListenerStoppedException.class)
                .hasMessage(STOPPED);
        assertThat(harness.sent()).hasSize(1);
    }

    @Test
    void shouldStillCloseItsProducerAndConsumerOnceTheListenerStopped() {
        stopListenerAndWait();

        harness.client.close();

        assertThat(harness.producer.closed()).isTrue();
        assertThat(harness.consumer.closed()).isTrue();
    }
}
