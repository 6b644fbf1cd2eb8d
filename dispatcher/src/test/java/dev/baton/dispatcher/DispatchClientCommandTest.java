package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.NOW;
import static dev.baton.dispatcher.DispatchClientHarness.WAIT;
import static dev.baton.dispatcher.DispatchClientHarness.failureOf;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.events.Timeouts;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link DispatchClient}'s dispatch, send and cancel write to {@code baton.dispatch}, what they
 * refuse before writing, and how send failures surface (on a {@code MockProducer}).
 */
class DispatchClientCommandTest {

    private DispatchClientHarness harness;

    private DispatchClientHarness start(Map<String, ?> settings) {
        harness = DispatchClientHarness.start(settings);
        return harness;
    }

    private DispatchClientHarness start() {
        return start(Map.of());
    }

    private DispatchClientHarness startWithManualAcks() {
        harness = DispatchClientHarness.startWithManualAcks();
        return harness;
    }

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    // What dispatch() writes

    @Test
    void shouldWriteTheCommandToTheDispatchTopicKeyedByTheSiteKeyBytes() {
        start().client.dispatch(request().site("payments", "order/42", "3").build());

        ProducerRecord<byte[], byte[]> record = harness.sent().get(0);
        assertThat(record.topic()).isEqualTo(BatonTopics.DISPATCH);
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("payments/order%2F42/3");
    }

    @Test
    void shouldWriteARequestedCommandCarryingTheRequestAndTheClientIdAsReplyKey() {
        ActivityRequest request = request().attempt(2).runId("run-7").node("eu-1")
                .input("{\"amount\":12}".getBytes(StandardCharsets.UTF_8), "application/json").build();

        start().client.dispatch(request);

        DispatchCommand cmd = harness.onlyCommand();
        assertThat(cmd.getKind()).isEqualTo(DispatchKind.REQUESTED);
        assertThat(cmd.getSite()).isEqualTo(new SiteRef("payments", "order-42", "3"));
        assertThat(cmd.getReplyKey()).isEqualTo(CLIENT_ID);
        assertThat(cmd.getAttempt()).isEqualTo(2);
        assertThat(cmd.getRunId()).isEqualTo("run-7");
        assertThat(cmd.getIdempotencyKey()).isEqualTo(request.idempotencyKey());
        assertThat(cmd.getQueue()).isEqualTo("payments");
        assertThat(cmd.getActivityType()).isEqualTo("charge");
        assertThat(cmd.getNode()).isEqualTo("eu-1");
        assertThat(StandardCharsets.UTF_8.decode(cmd.getInput().getData()).toString()).isEqualTo("{\"amount\":12}");
        assertThat(cmd.getInput().getContentType()).isEqualTo("application/json");
        assertThat(cmd.getRequestedAtMillis()).isEqualTo(NOW.toEpochMilli());
    }

    @Test
    void shouldCarryTheRetryPolicyInMilliseconds() {
        start().client.dispatch(request()
                .retry(new RetryOptions(Duration.ofMillis(250), 1.5, Duration.ofSeconds(10), 4, List.of("terminal:"))).build());

        assertThat(harness.onlyCommand().getRetryPolicy()).isEqualTo(new RetryPolicy(250L, 1.5, 10_000L, 4, List.of("terminal:")));
    }

    @Test
    void shouldCarryTheTimeoutsThatAreSetInMilliseconds() {
        start().client.dispatch(request().scheduleToStart(Duration.ofSeconds(1)).scheduleToClose(Duration.ofMinutes(1))
                .heartbeat(Duration.ofMillis(3_000)).build());

        assertThat(harness.onlyCommand().getTimeouts()).isEqualTo(new Timeouts(1_000L, null, 60_000L, 3_000L));
    }

    @Test
    void shouldLeaveRetryPolicyTimeoutsAndNodeOutWhenTheRequestHasNone() {
        start().client.dispatch(request().build());

        DispatchCommand cmd = harness.onlyCommand();
        assertThat(cmd.getRetryPolicy()).isNull();
        assertThat(cmd.getTimeouts()).isNull();
        assertThat(cmd.getNode()).isNull();
    }

    @Test
    void shouldGiveEveryDispatchItsOwnRequestId() {
        ActivityRequest request = request().build();
        start().client.dispatch(request);
        harness.client.dispatch(request);

        assertThat(harness.command(0).getRequestId()).isNotEqualTo(harness.command(1).getRequestId());
        assertThat(harness.client.pendingCount()).isEqualTo(2);
    }

    @Test
    void shouldUseAnIdempotentProducerThatWaitsForAllReplicasWhateverTheSettings() {
        start(Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"));

        assertThat(harness.producerConfig)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    }

    @Test
    void shouldNameItsProducerAfterTheClientIdAndKeepBatonsSettingsFromIt() {
        start(Map.of(DispatchClientConfig.MAX_PENDING_CONFIG, "10"));

        assertThat(harness.producerConfig)
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "baton-dispatch-billing-1")
                .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 1)
                .doesNotContainKeys(DispatchClientConfig.CLIENT_ID_CONFIG, DispatchClientConfig.MAX_PENDING_CONFIG,
                        DispatchClientConfig.SCHEMA_REGISTRY_URL_CONFIG);
    }

    // Input bounds

    @Test
    void shouldRejectInputLargerThanMaxPayloadBytesBeforeAnythingIsSent() {
        start(Map.of(DispatchClientConfig.MAX_PAYLOAD_BYTES_CONFIG, "8"));
        ActivityRequest request = request().input(new byte[9], "application/octet-stream").build();

        assertThatThrownBy(() -> harness.client.dispatch(request))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("input must be <= max.payload.bytes 8, was 9");
        assertThat(harness.sent()).isEmpty();
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldAcceptInputOfExactlyMaxPayloadBytes() {
        start(Map.of(DispatchClientConfig.MAX_PAYLOAD_BYTES_CONFIG, "8"));

        harness.client.dispatch(request().input(new byte[8], "application/octet-stream").build());

        assertThat(harness.onlyCommand().getInput().getData().remaining()).isEqualTo(8);
    }

    @Test
    void shouldRejectOversizedInputOfAFireAndForgetSendBeforeAnythingIsSent() {
        start(Map.of(DispatchClientConfig.MAX_PAYLOAD_BYTES_CONFIG, "8"));
        ActivityRequest request = request().input(new byte[9], "application/octet-stream").build();

        assertThatThrownBy(() -> harness.client.send(request))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("input must be <= max.payload.bytes 8, was 9");
        assertThat(harness.sent()).isEmpty();
    }

    // Send failures

    @Test
    void shouldKeepTheFutureWaitingForTheOutcomeOnceTheBrokerHasTheCommand() {
        CompletableFuture<ActivityOutcome> future = startWithManualAcks().client.dispatch(request().build());

        assertThat(harness.producer.completeNext()).isTrue();

        assertThat(future).isNotDone();
        assertThat(harness.client.pendingCount()).isEqualTo(1);
    }

    @Test
    void shouldFailTheFutureWhenTheBrokerRejectsTheCommand() {
        CompletableFuture<ActivityOutcome> future = startWithManualAcks().client.dispatch(request().build());
        RecordTooLargeException rejection = new RecordTooLargeException("record too large");

        harness.producer.errorNext(rejection);

        Throwable failure = failureOf(future);
        String requestId = harness.onlyCommand().getRequestId();
        assertThat(failure).isExactlyInstanceOf(DispatchException.class)
                .hasMessage("could not send payments/order-42/3 (request " + requestId + "): record too large; nothing was written")
                .hasCause(rejection);
        assertThat(((DispatchException) failure).requestId()).isEqualTo(requestId);
        assertThat(harness.client.pendingCount()).isZero();
    }

    /**
     * h/adv26: a command whose acknowledgement did not come within delivery.timeout.ms (connections cut) may have been
     * written; it ran, and its outcome reached the unmatched handler after the caller was told "could not send".
     */
    @Test
    void shouldSayAnUnacknowledgedCommandMayRunAndHowToLearnItsOutcome() {
        CompletableFuture<ActivityOutcome> future = startWithManualAcks().client.dispatch(request().build());
        TimeoutException expired = new TimeoutException("Expiring 1 record(s) for baton.dispatch-0:120001 ms has passed since batch creation");

        harness.producer.errorNext(expired);

        Throwable failure = failureOf(future);
        assertThat(failure).isInstanceOf(DispatchUnacknowledgedException.class).hasCause(expired)
                .hasMessageContaining("may have been written and may run").hasMessageContaining("Dispatch the same request again");
        assertThat(((DispatchException) failure).requestId()).isEqualTo(harness.onlyCommand().getRequestId());
    }

    /** h/adv26: with no broker reachable, the producer fails the send inside send(), after max.block.ms: nothing was written. */
    @Test
    void shouldSayACommandThatNeverLeftTheClientWasNotWrittenAndNameTheBrokers() {
        startWithManualAcks();
        harness.producer.failInsideSend = new TimeoutException("Topic baton.dispatch not present in metadata after 60000 ms.");

        Throwable failure = failureOf(harness.client.dispatch(request().build()));

        assertThat(failure).isExactlyInstanceOf(DispatchException.class).hasMessageContaining("nothing was written")
                .hasMessageContaining("no broker of").hasMessageContaining("dispatch it again once the cluster is reachable");
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldLeaveNothingPendingWhenTheProducerThrowsOnSend() {
        start();
        KafkaException refused = new KafkaException("producer closed while send in progress");
        harness.producer.sendException = refused;

        assertThatThrownBy(() -> harness.client.dispatch(request().build())).isSameAs(refused);
        assertThat(harness.client.pendingCount()).isZero();
    }

    // Fire-and-forget

    @Test
    void shouldCompleteASendWithItsRequestIdOnceTheBrokerHasIt() {
        CompletableFuture<String> sent = startWithManualAcks().client.send(request().build());
        assertThat(sent).isNotDone();

        harness.producer.completeNext();

        assertThat(sent).isCompletedWithValue(harness.onlyCommand().getRequestId());
        assertThat(harness.onlyCommand().getKind()).isEqualTo(DispatchKind.REQUESTED);
        assertThat(harness.client.pendingCount()).isZero();
    }

    @Test
    void shouldHandTheOutcomeOfASendToTheUnmatchedHandler() {
        CompletableFuture<String> sent = start().client.send(request().build());
        String requestId = sent.join();

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(requestId, CLIENT_ID).build());

        await().atMost(WAIT).until(() -> !harness.unmatched.isEmpty());
        assertThat(harness.unmatched).extracting(ActivityOutcome::requestId).containsExactly(requestId);
    }

    @Test
    void shouldFailASendTheBrokerRejects() {
        CompletableFuture<String> sent = startWithManualAcks().client.send(request().build());
        RecordTooLargeException rejection = new RecordTooLargeException("record too large");

        harness.producer.errorNext(rejection);

        assertThat(sent).failsWithin(WAIT).withThrowableOfType(ExecutionException.class).havingCause()
                .isExactlyInstanceOf(DispatchException.class).withMessageContaining("nothing was written").withCause(rejection);
    }

    // Cancel

    @Test
    void shouldWriteACancelCommandForTheSiteRepliedToThisClient() {
        SiteKey site = new SiteKey("payments", "order-42", "3");

        start().client.cancel(site);

        assertThat(harness.sent().get(0).key()).isEqualTo(site.toBytes());
        DispatchCommand cmd = harness.onlyCommand();
        assertThat(cmd.getKind()).isEqualTo(DispatchKind.CANCEL);
        assertThat(cmd.getSite()).isEqualTo(site.toRef());
        assertThat(cmd.getReplyKey()).isEqualTo(CLIENT_ID);
        assertThat(cmd.getRequestedAtMillis()).isEqualTo(NOW.toEpochMilli());
    }
}
