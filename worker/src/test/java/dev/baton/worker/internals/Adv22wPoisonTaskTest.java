package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityHandler;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Adversary round 22 (worker lifecycle), finding 1: a task record that decodes but that the worker
 * cannot run (attempt 0, generation 0, an empty site part, an empty token or one with a '.') threw
 * out of the lease loop (an {@code IllegalArgumentException} from {@code SiteKey} or {@code CompletionRef}),
 * which ended the queue loop for good: "task loop stopped; this worker no longer registers the queue".
 * The partition then moves to the next worker of the queue, which dies on the same record: one record
 * leaves the whole queue unserved. Under plain leases the run starts first, and every heartbeat round
 * of the worker then fails on it, so every other run of the worker loses its lease.
 * Such a task must be dead-lettered (like an undecodable one) and the loop go on.
 */
class Adv22wPoisonTaskTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
    private static final String QUEUE = "q";
    private static final String TOPIC = BatonTopics.tasks(QUEUE);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv22w-poison", Map.of());
    private final EventSerde<ActivityTask> taskSerde = EventSerde.of(ActivityTask.class, registry);
    private final EventSerde<WorkerEvent> eventSerde = EventSerde.of(WorkerEvent.class, registry);
    private final MockProducer<byte[], byte[]> eventProducer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final EventSender events = new EventSender(eventProducer, eventSerde, "w", CLOCK);
    private final DeadLetters deadLetters = new DeadLetters(EventSerde.of(DeadLetter.class, registry), "worker w", CLOCK);
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(4);
    private final ActivityPool pool = new ActivityPool(4, r -> daemon(r, "test-activity"));
    private final Semaphore finish = new Semaphore(0);
    private final AtomicInteger started = new AtomicInteger();
    private final ActivityHandler gated = (ctx, input) -> {
        started.incrementAndGet();
        finish.acquire();
        return input;
    };
    private final ActivityRunner runner = new ActivityRunner(Map.of("gated", gated), pool, executions, slots, events);
    private final List<MockProducer<byte[], byte[]>> leaseProducers = new ArrayList<>();
    private QueueRunner queueRunner;

    @AfterEach
    void stop() {
        finish.release(1_000);
        if (queueRunner != null) {
            queueRunner.stop(Duration.ofSeconds(5));
        }
        pool.shutdownNow();
        registry.close();
    }

    static Stream<Arguments> poisons() {
        List<Arguments> out = new ArrayList<>();
        Map<String, UnaryOperator<ActivityTask.Builder>> poisons = Map.of(
                "attempt 0", b -> b.setAttempt(0),
                "generation 0", b -> b.setGeneration(0),
                "empty activity id", b -> b.setSite(new SiteRef("ns", "wf-poison", "")),
                "empty token", b -> b.setToken(""),
                "token with a dot", b -> b.setToken("a.b" + "x".repeat(CompletionToken.LENGTH - 3)),
                // The dead letter must still fit a request: a reason echoing this token did not.
                "huge token with a dot", b -> b.setToken("." + "x".repeat(600_000)));
        for (boolean plain : new boolean[] {false, true}) {
            poisons.forEach((name, poison) -> out.add(Arguments.of(name + (plain ? ", plain leases" : ", lease transactions"), poison,
                    plain)));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("poisons")
    void aTaskTheWorkerCannotRunIsDeadLetteredAndTheLoopGoesOn(String name, UnaryOperator<ActivityTask.Builder> poison, boolean plain) {
        start(List.of(poison.apply(taskBuilder("poison")).build(), taskBuilder("good").build()), plain);

        await().atMost(PATIENCE).until(() -> started.get() >= 1);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(deadLettersSent()).as("dead letters of the poison task").hasSize(1));
        assertThat(queueRunner.serving()).as("queue loop still serving after " + name).isTrue();
        ProducerRecord<byte[], byte[]> letter = deadLettersSent().get(0);
        assertThat(letter.value().length + (letter.key() == null ? 0 : letter.key().length)).as("dead letter size")
                .isLessThan(600 * 1024);
        assertThat(started.get()).as("runs started: the good task only").isEqualTo(1);

        // And the worker's heartbeats go on for the good run (a run of the poison task failed every round).
        new Heartbeater(executions, events, Clock.offset(CLOCK, Duration.ofMinutes(1))).run();
        assertThat(eventsSent(WorkerEventKind.HEARTBEAT)).as("heartbeats of the good run").hasSize(1);
    }

    private void start(List<ActivityTask> tasks, boolean plain) {
        List<byte[]> values = tasks.stream().map(t -> taskSerde.encode(TOPIC, t)).toList();
        TaskLogConsumer consumer = new TaskLogConsumer(TOPIC, values, values.size(), () -> { });
        Leases leases = plain ? new PlainLeases(events, consumer, "worker w queue q", PlainLeases.DEFERRAL)
                : new LeaseTransactions(() -> {
                    MockProducer<byte[], byte[]> p = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
                    leaseProducers.add(p);
                    return p;
                }, "worker w queue q");
        queueRunner = new QueueRunner(QUEUE, "w", List.of(TOPIC), consumer, leases, taskSerde, events, deadLetters, runner, slots, CLOCK,
                () -> { }, () -> { });
        daemon(queueRunner, "test-queue").start();
    }

    private List<ProducerRecord<byte[], byte[]>> allSent() {
        List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(eventProducer.history());
        leaseProducers.forEach(p -> all.addAll(p.history()));
        return all;
    }

    private List<ProducerRecord<byte[], byte[]>> deadLettersSent() {
        return allSent().stream().filter(r -> r.topic().equals(BatonTopics.DLQ)).toList();
    }

    private List<WorkerEvent> eventsSent(WorkerEventKind kind) {
        return allSent().stream().filter(r -> r.topic().equals(BatonTopics.WORKER_EVENTS))
                .map(r -> eventSerde.decode(BatonTopics.WORKER_EVENTS, r.value())).filter(e -> e.getKind() == kind).toList();
    }

    private ActivityTask.Builder taskBuilder(String site) {
        return ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf-" + site, "1")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey(site).setQueue(QUEUE).setActivityType("gated")
                .setScheduledAtMillis(CLOCK.millis()).setHeartbeatWindowMillis(30L);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
