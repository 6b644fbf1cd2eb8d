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
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): a deferred plain lease whose send throws on the calling thread (a closed or failing
 * producer, a registry that cannot register the event's schema yet) leaves its {@link DeferredLease} settled
 * ({@code settle()} ran first, under the lock) but never proven: {@link LeaseDeferrals} logs "its batch is read
 * again once its acknowledgement is overdue", and after {@link PlainLeases#ACK_TIMEOUT} it is read again, but the
 * re-read's {@link PlainLeases#rejoin} re-sends a lease only when {@code proven()} failed; this one never completes,
 * so the batch waits on it again, 30 s at a time, for as long as the run lasts. No LEASED is ever sent, the offset is
 * never committed, and every task after it on the partition that finished meanwhile is read again (and run again)
 * at each rewind.
 */
class Adv21DeferredLeaseTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
    private static final String QUEUE = "q";
    private static final String TOPIC = BatonTopics.tasks(QUEUE);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://plain-leases", Map.of());
    private final EventSerde<ActivityTask> taskSerde = EventSerde.of(ActivityTask.class, registry);
    private final EventSerde<WorkerEvent> eventSerde = EventSerde.of(WorkerEvent.class, registry);
    /** Sends complete only when the test says so: an unacknowledged lease. */
    /** Sends tried, thrown ones included: the test waits for the deferred lease's send rather than for a time. */
    private final AtomicInteger sendsTried = new AtomicInteger();
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer()) {
        @Override
        public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(ProducerRecord<byte[], byte[]> record,
                org.apache.kafka.clients.producer.Callback callback) {
            try {
                return super.send(record, callback);
            } finally {
                sendsTried.incrementAndGet(); // after the send read sendException: the test may clear it once this counts
            }
        }
    };
    private final EventSender events = new EventSender(producer, eventSerde, "w", CLOCK);
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
    private QueueRunner queueRunner;

    @AfterEach
    void stop() {
        finish.release(1_000);
        new Thread(() -> { // the loop may be waiting for an acknowledgement: give every send one
            while (producer.completeNext()) {
                Thread.onSpinWait();
            }
        }).start();
        if (queueRunner != null) {
            queueRunner.stop(Duration.ofSeconds(5));
        }
        pool.shutdownNow();
        registry.close();
    }

    @Test
    void shouldLeaseARunWhoseDeferredLeaseSendThrew() {
        // Set before the task is read, so the deferred lease's send is the one that throws, however slow the machine.
        producer.sendException = new org.apache.kafka.common.KafkaException("cannot send now");
        TaskLogConsumer consumer = start(List.of(task("a", "t-a")), 1, Duration.ofMillis(500));
        await().atMost(PATIENCE).until(() -> started.get() == 1 && sendsTried.get() >= 1); // the deferral passed: its send threw
        producer.sendException = null;

        // The failed send fails the lease's proof, so the batch is read again (at the latest once its acknowledgement
        // is overdue, after ACK_TIMEOUT) and the run must be leased then. No assertion that nothing was leased yet:
        // the re-read may already have re-sent it by now, which is the fix working, not a defect.
        await().atMost(PlainLeases.ACK_TIMEOUT.plusSeconds(15)).until(() -> !leasesSent().isEmpty());
        producer.completeNext();
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
        assertThat(started.get()).isEqualTo(1);
    }

    private TaskLogConsumer start(List<byte[]> tasks) {
        return start(tasks, PlainLeases.DEFERRAL);
    }

    private TaskLogConsumer start(List<byte[]> tasks, Duration deferral) {
        return start(tasks, tasks.size(), deferral);
    }

    private TaskLogConsumer start(List<byte[]> tasks, int perPoll, Duration deferral) {
        TaskLogConsumer consumer = new TaskLogConsumer(TOPIC, tasks, perPoll, () -> { });
        queueRunner = new QueueRunner(QUEUE, "w", List.of(TOPIC), consumer, new PlainLeases(events, consumer, "worker w queue q", deferral), taskSerde,
                events, deadLetters, runner, slots, CLOCK, () -> { }, () -> { });
        daemon(queueRunner, "test-queue").start();
        return consumer;
    }

    private List<WorkerEventKind> kindsSent() {
        return producer.history().stream().map(r -> eventSerde.decode(BatonTopics.WORKER_EVENTS, r.value()).getKind()).toList();
    }

    private List<WorkerEvent> leasesSent() {
        List<WorkerEvent> leases = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            WorkerEvent e = eventSerde.decode(BatonTopics.WORKER_EVENTS, r.value());
            if (e.getKind() == WorkerEventKind.LEASED) {
                leases.add(e);
            }
        }
        return leases;
    }

    private static OffsetAndMetadata committed(TaskLogConsumer consumer) {
        synchronized (consumer) {
            return consumer.committed(Set.of(new TopicPartition(TOPIC, 0))).get(new TopicPartition(TOPIC, 0));
        }
    }

    private byte[] task(String site, String token) {
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf-" + site, "1")).setAttempt(1).setGeneration(1)
                .setToken(token.length() == CompletionToken.LENGTH ? token : pad(token)).setIdempotencyKey(site).setQueue(QUEUE)
                .setActivityType("gated").setScheduledAtMillis(CLOCK.millis()).build();
        return taskSerde.encode(TOPIC, task);
    }

    private static String pad(String token) {
        return (token + "x".repeat(CompletionToken.LENGTH)).substring(0, CompletionToken.LENGTH);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
