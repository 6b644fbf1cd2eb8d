package dev.baton.worker.internals;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import dev.baton.events.WorkerControl;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 12. A worker started while its broker cannot be reached yet (a
 * deployment whose workers come up before Kafka) gave its control listener 30 s to find its partition of
 * {@code baton.worker-control}; then the listener logged "control listener stopped" and ended for good, while the rest
 * of the worker (task loops, lease transactions, registration, reports) waited for the broker and then served. That
 * worker obeyed no stop for the rest of its life: cancels and takeovers did not interrupt its runs (a handler blocked
 * forever held its slot for ever), {@code ctx.isCancelled()} and {@code AsyncCompletion.isStopped()} stayed false. Same
 * for an {@code ActivityCompletionClient}'s stop reader. The listener must keep trying until it is stopped.
 */
class Adv22wControlListenerStartTest {

    /** One try's timeout, short so the test outlives several tries (a worker's is 30 s). */
    private static final Duration LOOKUP = Duration.ofSeconds(1);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv22w-control-start", Map.of());
    private final ClientMeters meters = new ClientMeters(new SimpleMeterRegistry());
    private final ControlListener listener = new ControlListener("w", Map.of("bootstrap.servers", "127.0.0.1:1"),
            EventSerde.of(WorkerControl.class, registry), new Executions(), meters, LOOKUP);
    private final Thread thread = new Thread(listener, "adv22w-control");

    @AfterEach
    void close() {
        listener.stop();
        registry.close();
        meters.close();
    }

    @Test
    void aControlListenerStartedBeforeItsBrokerIsReachableKeepsTrying() {
        thread.setDaemon(true);
        thread.start();
        // Past several tries' timeouts (the old listener gave up after its first), it must still be there to read stops once
        // the broker is.
        await().during(LOOKUP.multipliedBy(5)).atMost(LOOKUP.multipliedBy(10)).until(thread::isAlive);
    }
}
