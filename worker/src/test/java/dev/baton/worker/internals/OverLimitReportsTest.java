package dev.baton.worker.internals;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.TerminalActivityException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reports over the streams app's limits ({@link ReportLimits}): never sent as they are, since the
 * streams app would dead-letter them, the lease would be lost, the handler run again and its caller
 * answered {@code transport-exhausted}. A handler's output becomes a terminal failure naming the
 * limit; an async call is refused with an {@link IllegalArgumentException} naming the limit and the value.
 */
class OverLimitReportsTest {

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://over-limit", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(2, Thread::new);
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(2);
    private final Completer completer = new Completer(events, PayloadConverters.defaults(), executions);

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void shouldReportAnOutputOverMaxPayloadBytesAsATerminalFailureNamingTheLimitAndTheSize() {
        AtomicInteger runs = new AtomicInteger();
        run((ctx, input) -> {
            runs.incrementAndGet();
            return new byte[600_000];
        });

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.FAILED);
        assertThat(sent.getReason()).isEqualTo("terminal: OutputTooLarge: output must be <= max.payload.bytes 524288, was 600000");
        assertThat(sent.getFailure().getType()).isEqualTo("OutputTooLarge");
        assertThat(ReportLimits.defaults().problemWith(sent)).as("the streams app accepts the report").isEmpty();
        assertThat(runs).hasValue(1);
    }

    @Test
    void shouldReportAnOutputWhoseContentTypeIsOverTheIdBoundAsATerminalFailure() {
        Execution e = new Execution(task(), "w", 0);

        events.completed(e, new EncodedPayload(new byte[] {1}, "application/" + "x".repeat(300)));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.FAILED);
        assertThat(sent.getReason()).isEqualTo("terminal: OutputContentType: output.contentType must have <= 256 characters, had 312");
        assertThat(sent.getFailure().getType()).isEqualTo("OutputContentType");
        assertThat(ReportLimits.defaults().problemWith(sent)).as("the streams app accepts the report").isEmpty();
    }

    @Test
    void shouldRefuseAnAsyncCompletionOrFailureDetailsWithAContentTypeOverTheIdBound() {
        AsyncCompletion handle = handedOff();
        EncodedPayload odd = new EncodedPayload(new byte[] {1}, "application/" + "x".repeat(300));

        ActivityFailure failure = new ActivityFailure("Declined", "card declined", odd, "", null);
        assertThatThrownBy(() -> completer.fail(handle.ref(), "terminal: declined", failure))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("failure.details.contentType must have <= 256 characters, had 312");
        assertThat(producer.history()).as("nothing sent").isEmpty();
        WorkerEvent completed = WorkerEvent.newBuilder(completionEvent()).setOutput(new dev.baton.events.Payload(java.nio.ByteBuffer.wrap(odd.data()),
                odd.contentType())).build();
        assertThat(ReportLimits.defaults().problemWith(completed)).hasValue("output.contentType must have <= 256 characters, had 312");
    }

    private static WorkerEvent completionEvent() {
        return WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(new SiteRef("shop", "order-1", "charge")).setAttempt(1)
                .setGeneration(1).setToken("tok").setWorkerId("w").setAtMillis(0).build();
    }

    @Test
    void shouldSendAnOutputAtTheLimit() {
        run((ctx, input) -> new byte[ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES]);

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.COMPLETED);
        assertThat(sent.getOutput().getData().remaining()).isEqualTo(ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    @Test
    void shouldRefuseAnAsyncCompletionOverMaxPayloadBytes() {
        AsyncCompletion handle = handedOff();

        assertThatThrownBy(() -> handle.complete(new byte[600_000])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("output must be <= max.payload.bytes 524288, was 600000");
        assertThat(producer.history()).as("nothing sent").isEmpty();
    }

    @Test
    void shouldRefuseAsyncHeartbeatDetailsOverTheirLimit() {
        AsyncCompletion handle = handedOff();

        assertThatThrownBy(() -> handle.heartbeat(new byte[70_000])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heartbeatDetails must be <= 65536 bytes, was 70000");
        assertThat(producer.history()).isEmpty();
        handle.heartbeat(new byte[1_000]).join();
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void shouldRefuseAnExplicitReasonOrFailureDetailsOverTheirLimits() {
        AsyncCompletion handle = handedOff();

        assertThatThrownBy(() -> completer.fail(handle.ref(), "terminal: " + "R".repeat(10_000), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reason must have <= 8192 characters, had 10010");
        ActivityFailure big = new ActivityFailure("Declined", "card declined", EncodedPayload.octetStream(new byte[100_000]), "", null);
        assertThatThrownBy(() -> completer.fail(handle.ref(), "terminal: declined", big))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("failure.details must be <= 65536 bytes, was 100000");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void shouldCutAnAsyncFailuresOverlongMessageAsAHandlersExceptionIsCut() {
        AsyncCompletion handle = handedOff();

        handle.fail(new TerminalActivityException("x".repeat(20_000))).join();

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getReason()).hasSize(ReportLimits.MAX_REASON_CHARS);
        assertThat(ReportLimits.defaults().problemWith(sent)).isEmpty();
    }

    @Test
    void shouldReportAFailureWhoseDetailsCannotBeSentWithoutThem() {
        ActivityFailure cause = new ActivityFailure("Inner", "inner", EncodedPayload.octetStream(new byte[100_000]), "", null);
        Execution e = new Execution(task(), "w", 0);

        events.failed(e, "terminal: declined", new ActivityFailure("Declined", "card declined", null, "", cause));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getReason()).isEqualTo("terminal: declined");
        assertThat(sent.getFailure().getType()).isEqualTo("Declined");
        assertThat(sent.getFailure().getMessage()).contains("failure.details must be <= 65536 bytes, was 100000");
        assertThat(ReportLimits.defaults().problemWith(sent)).isEmpty();
    }

    private AsyncCompletion handedOff() {
        AtomicReference<AsyncCompletion> handle = new AtomicReference<>();
        Execution e = run((ctx, input) -> {
            handle.set(ctx.completeLater());
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(e.phase()).isEqualTo(Execution.Phase.HANDED_OFF));
        return handle.get();
    }

    private Execution run(ActivityHandler handler) {
        Execution e = new Execution(task(), "w", 0);
        slots.tryTake(1);
        new ActivityRunner(Map.of("charge", handler), pool, executions, slots, events, PayloadConverters.defaults()).submit(e);
        return e;
    }

    private WorkerEvent awaitEvent() {
        await().atMost(Duration.ofSeconds(5)).until(() -> !producer.history().isEmpty());
        List<WorkerEvent> sent = producer.history().stream().map(r -> serde.decode(BatonTopics.WORKER_EVENTS, r.value())).toList();
        return sent.get(0);
    }

    static ActivityTask task() {
        return ActivityTask.newBuilder().setSite(new SiteRef("shop", "order-1", "charge")).setAttempt(1).setGeneration(1)
                .setToken("tok").setIdempotencyKey("idem").setQueue("q").setActivityType("charge").setScheduledAtMillis(0)
                .setInput(new dev.baton.events.Payload(java.nio.ByteBuffer.wrap("in".getBytes(UTF_8)), EncodedPayload.OCTET_STREAM))
                .build();
    }
}
