package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityHandler;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 5. A handler's exception whose {@code getMessage()} throws an
 * {@link Error} (a recursive message overflowing the stack, an assertion) escaped {@link Failures}, which caught
 * only {@code RuntimeException}s (the second round's fix): the runner's catch threw again, no report went out,
 * the execution left the worker, and its site waited for the heartbeat deadline. The activity then ran again
 * as a transport loss, each time, until {@code transport-exhausted:} ("the activity may never have run"), where
 * the contract says any exception is {@code retryable:}.
 */
class Adv22wHostileExceptionTest {

    /** An exception whose message cannot be read: its getMessage throws an Error. */
    static final class MessageThrowsError extends RuntimeException {
        @Override
        public String getMessage() {
            throw new AssertionError("getMessage refuses");
        }
    }

    private final EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, SchemaRegistry.forUrl("mem://adv22w-hostile", Map.of()));
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final EventSender events = new EventSender(producer, serde, "w", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ActivityPool pool = new ActivityPool(1, r -> {
        Thread t = new Thread(r, "adv22w-activity");
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((th, ex) -> { }); // the escaped Error would otherwise only be printed
        return t;
    });
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(1);

    @AfterEach
    void close() {
        pool.shutdownNow();
    }

    @Test
    void anExceptionWhoseMessageThrowsAnErrorIsStillReportedRetryable() {
        ActivityHandler hostile = (ctx, input) -> {
            throw new MessageThrowsError();
        };
        slots.tryTake(1);
        new ActivityRunner(Map.of("t", hostile), pool, executions, slots, events, PayloadConverters.defaults())
                .submit(new Execution(task(), "w", 0));

        await().atMost(Duration.ofSeconds(5)).until(() -> slots.free() == 1); // the run ended, one way or another
        List<WorkerEvent> sent = producer.history().stream().map(r -> serde.decode(BatonTopics.WORKER_EVENTS, r.value())).toList();
        assertThat(sent).as("reports of the run").hasSize(1);
        assertThat(sent.get(0).getKind()).isEqualTo(WorkerEventKind.FAILED);
        assertThat(sent.get(0).getReason()).startsWith("retryable: MessageThrowsError: (its message could not be read");
        assertThat(sent.get(0).getFailure().getType()).isEqualTo(MessageThrowsError.class.getName());
    }

    private static ActivityTask task() {
        return ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf", "a")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey("k").setQueue("q").setActivityType("t")
                .setScheduledAtMillis(0).build();
    }
}
