package dev.baton.worker.internals;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;
import dev.baton.worker.TerminalActivityException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the runner reports for a handler: structured failures, checkpoints handed over, and hand-offs that complete later. */
class ActivityRunnerReportsTest {

    record Decline(int code) {
    }

    record Progress(int row) {
    }

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://runner-reports", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(2, Thread::new);
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(2);

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void shouldReportAThrownFailureWithItsTypeDetailsStackAndCause() {
        run((ctx, input) -> {
            throw new TerminalActivityException("CardDeclined", "card declined", new Decline(51), new IllegalStateException("gateway 402"));
        }, task(null));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.FAILED);
        assertThat(sent.getReason()).isEqualTo("terminal: card declined");
        ActivityFailure failure = ActivityFailure.of(sent.getFailure());
        assertThat(failure.type()).isEqualTo("CardDeclined");
        assertThat(failure.message()).isEqualTo("card declined");
        assertThat(failure.detailsAs(Decline.class, PayloadConverters.defaults())).isEqualTo(new Decline(51));
        assertThat(failure.stack()).contains(ActivityRunnerReportsTest.class.getName());
        assertThat(failure.cause().type()).isEqualTo(IllegalStateException.class.getName());
        assertThat(failure.cause().message()).isEqualTo("gateway 402");
    }

    @Test
    void shouldNameAnUntypedExceptionByItsClassAndKeepItRetryable() {
        run((ctx, input) -> {
            throw new ArithmeticException("/ by zero");
        }, task(null));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getReason()).isEqualTo("retryable: ArithmeticException: / by zero");
        assertThat(sent.getFailure().getType()).isEqualTo("java.lang.ArithmeticException");
    }

    @Test
    void shouldGiveTheHandlerTheCheckpointAndSendItsTypedHeartbeatWithItsContentType() {
        AtomicReference<Progress> resumedFrom = new AtomicReference<>();
        Execution e = run((ctx, input) -> {
            resumedFrom.set(ctx.lastHeartbeatDetails(Progress.class).orElseThrow());
            ctx.heartbeat(new Progress(resumedFrom.get().row() + 10));
            return new byte[0];
        }, task(new Payload(ByteBuffer.wrap("{\"row\":20}".getBytes(UTF_8)), "application/json")));
        awaitEvent();

        events.heartbeat(e);

        WorkerEvent heartbeat = serde.decode(dev.baton.topics.BatonTopics.WORKER_EVENTS, producer.history().get(1).value());
        assertThat(resumedFrom.get()).isEqualTo(new Progress(20));
        assertThat(heartbeat.getHeartbeatContentType()).isEqualTo("application/json");
        assertThat(UTF_8.decode(heartbeat.getHeartbeatDetails()).toString()).isEqualTo("{\"row\":30}");
    }

    @Test
    void shouldCarryTheLastCheckpointInAFailureReportSoTheNextAttemptResumesFromIt() {
        run((ctx, input) -> {
            ctx.heartbeat("progress-50%".getBytes(UTF_8)); // no heartbeat goes out before the throw
            throw new dev.baton.worker.RetryableActivityException("transient, retry me");
        }, task(null));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.FAILED);
        assertThat(UTF_8.decode(sent.getHeartbeatDetails()).toString()).isEqualTo("progress-50%");
    }

    @Test
    void shouldReportNothingForAHandedOffGenerationAndFreeItsSlot() {
        AtomicReference<AsyncCompletion> handle = new AtomicReference<>();
        Execution e = run((ctx, input) -> {
            handle.set(ctx.completeLater());
            return null;
        }, task(null));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(e.phase()).isEqualTo(Execution.Phase.HANDED_OFF));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(executions.size()).isZero());
        assertThat(producer.history()).isEmpty();

        handle.get().complete("done".getBytes(UTF_8)).join();

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getKind()).isEqualTo(WorkerEventKind.COMPLETED);
        assertThat(sent.getToken()).isEqualTo("tok");
        assertThat(sent.getGeneration()).isEqualTo(2);
        assertThat(CompletionRef.parse(handle.get().token())).isEqualTo(e.ref());
    }

    @Test
    void shouldCutAnOverlongMessageToTheReasonBoundSoTheReportIsNotDeadLettered() {
        run((ctx, input) -> {
            throw new TerminalActivityException("x".repeat(20_000));
        }, task(null));

        WorkerEvent sent = awaitEvent();
        assertThat(sent.getReason()).startsWith("terminal: xxx").hasSize(Failures.MAX_REASON_CHARS);
        assertThat(sent.getFailure().getMessage()).hasSize(ActivityFailure.MAX_MESSAGE_CHARS);
    }

    @Test
    void shouldRefuseHeartbeatDetailsOverTheLimitAtTheHandlersCall() {
        Execution e = new Execution(task(null), "w", 0);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> e.heartbeat(new byte[65_537]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat details must be <= 65536 bytes, were 65537");
    }

    private Execution run(ActivityHandler handler, ActivityTask task) {
        Execution e = new Execution(task, "w", 0);
        slots.tryTake(1);
        new ActivityRunner(Map.of("charge", handler), pool, executions, slots, events, PayloadConverters.defaults()).submit(e);
        return e;
    }

    private WorkerEvent awaitEvent() {
        await().atMost(Duration.ofSeconds(5)).until(() -> !producer.history().isEmpty());
        List<WorkerEvent> sent = producer.history().stream().map(r -> serde.decode(dev.baton.topics.BatonTopics.WORKER_EVENTS, r.value())).toList();
        return sent.get(0);
    }

    private static ActivityTask task(Payload lastHeartbeat) {
        return ActivityTask.newBuilder().setSite(new SiteRef("shop", "order-1", "charge")).setAttempt(1).setGeneration(2)
                .setToken("tok").setIdempotencyKey("idem").setQueue("q").setActivityType("charge").setScheduledAtMillis(0)
                .setLastHeartbeatDetails(lastHeartbeat).build();
    }
}
