package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 13. Once a handler has handed its generation off and returned, the worker
 * no longer heartbeats it, and {@code ctx.heartbeat(details)} only records details for heartbeats that never go out: the
 * checkpoint is silently lost and, if the holder heartbeats only that way, the lease too (the activity is redelivered
 * after its heartbeat window, and the holder's completion refused). The context's javadoc still says heartbeats "are sent
 * in batches every heartbeat window / 3 regardless". Misuse must fail fast, naming the way that works (the handle).
 */
class Adv22wHeartbeatAfterHandOffTest {

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://adv22w-hb-handoff", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(1, r -> {
        Thread t = new Thread(r, "adv22w-activity");
        t.setDaemon(true);
        return t;
    });
    private final Slots slots = new Slots(1);

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void aContextHeartbeatAfterTheHandOffFailsNamingTheHandle() {
        AtomicReference<ActivityContext> context = new AtomicReference<>();
        ActivityHandler later = (ctx, input) -> {
            context.set(ctx);
            ctx.completeLater();
            return null;
        };
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf", "a")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey("k").setQueue("q").setActivityType("t")
                .setScheduledAtMillis(0).build();
        slots.tryTake(1);
        new ActivityRunner(Map.of("t", later), pool, new Executions(), slots, events, PayloadConverters.defaults())
                .submit(new Execution(task, "w", 0));
        await().atMost(Duration.ofSeconds(5)).until(() -> slots.free() == 1); // handed off

        assertThatThrownBy(() -> context.get().heartbeat("row 42")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handed off").hasMessageContaining("AsyncCompletion");
        assertThatThrownBy(() -> context.get().heartbeat(new byte[] {1})).isInstanceOf(IllegalStateException.class);
    }
}
