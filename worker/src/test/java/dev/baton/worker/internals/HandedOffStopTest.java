package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.AsyncCompletion;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stop for a run this worker no longer holds (handed off to complete later) or does not hold yet
 * (a cancelled task read after its stop): the handle says so, and the task is not run.
 */
class HandedOffStopTest {

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://handed-off-stop", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(2, Thread::new);
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(2);
    private final ActivityTask task = OverLimitReportsTest.task();

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void shouldTellAHandedOffGenerationsHolderThatItWasStopped() {
        AtomicReference<AsyncCompletion> handle = new AtomicReference<>();
        Execution e = run((ctx, input) -> {
            handle.set(ctx.completeLater());
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(executions.size()).isZero());
        assertThat(e.phase()).isEqualTo(Execution.Phase.HANDED_OFF);
        assertThat(handle.get().isStopped()).isFalse();

        boolean stoppedHere = executions.stop(task.getSite(), 1, 1, CompletionToken.fingerprint("tok"));

        assertThat(stoppedHere).as("nothing runs here to interrupt").isFalse();
        assertThat(handle.get().isStopped()).isTrue();
    }

    @Test
    void shouldNotTakeAStopWithoutTheTokensFingerprintAsProof() {
        AtomicReference<AsyncCompletion> handle = new AtomicReference<>();
        run((ctx, input) -> {
            handle.set(ctx.completeLater());
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(executions.size()).isZero());

        executions.stop(task.getSite(), 1, 1, CompletionToken.fingerprint("another-token"));
        executions.stop(task.getSite(), 1, 1, null);

        assertThat(handle.get().isStopped()).isFalse();
    }

    @Test
    void shouldNotRunATaskWhoseStopArrivedBeforeIt() {
        executions.stop(task.getSite(), 1, 1, CompletionToken.fingerprint("tok"));
        AtomicInteger runs = new AtomicInteger();
        ActivityRunner runner = runner((ctx, input) -> {
            runs.incrementAndGet();
            return new byte[0];
        });
        assertThat(runner.stopped("tok")).as("the queue loop skips it when it reads it").isTrue();

        Execution e = new Execution(task, "w", 0);
        slots.tryTake(1);
        runner.submit(e);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slots.free()).isEqualTo(2));
        assertThat(runs).hasValue(0);
        assertThat(e.phase()).isEqualTo(Execution.Phase.STOPPED);
        assertThat(producer.history()).as("nothing to report: Baton already ended it").isEmpty();
    }

    private Execution run(ActivityHandler handler) {
        Execution e = new Execution(task, "w", 0);
        slots.tryTake(1);
        runner(handler).submit(e);
        return e;
    }

    private ActivityRunner runner(ActivityHandler handler) {
        return new ActivityRunner(Map.of("charge", handler), pool, executions, slots, events, PayloadConverters.defaults());
    }
}
