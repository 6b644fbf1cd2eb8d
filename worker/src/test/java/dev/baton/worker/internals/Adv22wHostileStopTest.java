package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.Map;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Adversary round 22 (worker lifecycle), finding 8. A {@code WorkerControl} record whose site has an empty part (the
 * schema allows it) made the control listener throw while merely naming the site ({@code SiteKey.of} refuses empty
 * parts), for a STOP and, in a debug line evaluated anyway, for any other kind. The throw ended the listener's loop
 * ("control listener stopped"), and the worker (or completion client, which reads its stops the same way) obeyed no
 * stop again: cancelled and superseded runs went on holding their slots, a handler blocked forever was never
 * interrupted, and {@code AsyncCompletion.isStopped()} stayed false. One record on the worker's control partition
 * did it.
 */
class Adv22wHostileStopTest {

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv22w-stop", Map.of());
    private final EventSerde<WorkerControl> serde = EventSerde.of(WorkerControl.class, registry);
    private final Executions executions = new Executions();
    private final ClientMeters meters = new ClientMeters(new SimpleMeterRegistry());
    private final ControlListener listener = new ControlListener("w", Map.of("bootstrap.servers", "localhost:1"), serde, executions, meters);

    @AfterEach
    void close() {
        registry.close();
        meters.close();
    }

    @ParameterizedTest
    @EnumSource(WorkerControlKind.class)
    void aControlRecordWithAnEmptySitePartIsSkippedAndLaterStopsAreObeyed(WorkerControlKind kind) {
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf", "a")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey("k").setQueue("q").setActivityType("t")
                .setScheduledAtMillis(0).build();
        Execution running = new Execution(task, "w", 0);
        executions.add(running);

        assertThatCode(() -> listener.handle(record(control(kind, new SiteRef("", "", ""), "f")))).as("a hostile control record")
                .doesNotThrowAnyException();
        listener.handle(record(control(WorkerControlKind.STOP, task.getSite(), CompletionToken.fingerprint(task.getToken()))));
        assertThat(running.isCancelled()).as("the run a later, genuine stop names").isTrue();
    }

    @Test
    void aStopWithAnEmptySitePartStopsNothing() {
        assertThatCode(() -> listener.handle(record(control(WorkerControlKind.STOP, new SiteRef("ns", "wf", ""), null))))
                .doesNotThrowAnyException();
    }

    private static WorkerControl control(WorkerControlKind kind, SiteRef site, String fingerprint) {
        return WorkerControl.newBuilder().setKind(kind).setWorkerId("w").setSite(site).setAttempt(1).setGeneration(1).setReason("r")
                .setAtMillis(0).setTokenFingerprint(fingerprint).build();
    }

    private ConsumerRecord<byte[], byte[]> record(WorkerControl control) {
        return new ConsumerRecord<>(BatonTopics.WORKER_CONTROL, 0, 0, "w".getBytes(), serde.encode(BatonTopics.WORKER_CONTROL, control));
    }
}
