package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.AsyncCompletion;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 7. {@link ActivityContext#isCancelled()} promises "true once Baton
 * took the activity away (superseded, cancelled, timed out) or the worker is draining it". A handler that hands its
 * generation off ({@code ctx.completeLater()}) and lets its async work watch {@code ctx.isCancelled()} (the one
 * cancellation signal the context offers) saw it turn true the moment the handler returned, though nothing was
 * cancelled: the execution's phase had moved to HANDED_OFF, and any phase but RUNNING read as cancelled. The work
 * gave up, and the activity was lost to its heartbeat deadline.
 */
class Adv22wHandedOffCancelledTest {

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://adv22w-handoff", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(1, r -> {
        Thread t = new Thread(r, "adv22w-activity");
        t.setDaemon(true);
        return t;
    });
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(1);

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void aHandedOffGenerationIsNotCancelledUntilBatonStopsIt() {
        AtomicReference<ActivityContext> context = new AtomicReference<>();
        AtomicReference<AsyncCompletion> handle = new AtomicReference<>();
        ActivityHandler later = (ctx, input) -> {
            context.set(ctx);
            handle.set(ctx.completeLater());
            return null;
        };
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf", "a")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey("k").setQueue("q").setActivityType("t")
                .setScheduledAtMillis(0).build();
        slots.tryTake(1);
        new ActivityRunner(Map.of("t", later), pool, executions, slots, events, PayloadConverters.defaults())
                .submit(new Execution(task, "w", 0));
        await().atMost(Duration.ofSeconds(5)).until(() -> slots.free() == 1); // handed off: the handler returned

        assertThat(context.get().isCancelled()).as("isCancelled of a generation handed off and not stopped").isFalse();
        assertThat(handle.get().isStopped()).isFalse();

        // Baton stops it: now both say so.
        executions.stop(task.getSite(), 1, 1, CompletionToken.fingerprint(task.getToken()));
        assertThat(handle.get().isStopped()).isTrue();
        assertThat(context.get().isCancelled()).as("isCancelled once a stop for it reached the worker").isTrue();
    }
}
