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
 * Plain leases (a streams app running at-least-once): the handler starts when the task is read, not
 * when its lease is acknowledged; a run that reports within the deferral is leased by that report
 * (no LEASED), a longer one gets its LEASED first; the batch's offsets are committed only after every
 * run of the batch, and of the batches before it, is leased and acknowledged, and the loop polls on meanwhile. MockConsumer over a log and a MockProducer whose sends the test acknowledges by hand.
 */
class PlainLeasesTest {

    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
    private static final String QUEUE = "q";
    private static final String TOPIC = BatonTopics.tasks(QUEUE);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://plain-leases", Map.of());
    private final EventSerde<ActivityTask> taskSerde = EventSerde.of(ActivityTask.class, registry);
    private final EventSerde<WorkerEvent> eventSerde = EventSerde.of(WorkerEvent.class, registry);
    /** Sends complete only when the test says so: an unacknowledged lease. */
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
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
    void shouldStartHandlersBeforeTheLeasesAreAcknowledgedAndCommitOffsetsOnlyAfter() {
        TaskLogConsumer consumer = start(List.of(task("a", "t-a"), task("b", "t-b")));

        await().atMost(PATIENCE).until(() -> started.get() == 2);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 2); // the runs outlived the deferral: LEASED went out
        assertThat(committed(consumer)).as("offsets committed before the leases are acknowledged").isNull();

        producer.completeNext();
        producer.completeNext();

        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 2);
    }

    @Test
    void shouldPollOnWhileAnEarlierBatchWaitsForItsLeasesAndCommitInOrder() {
        TaskLogConsumer consumer = start(List.of(task("a", "t-a"), task("b", "t-b")), 1, PlainLeases.DEFERRAL);

        // One task per poll: the second batch starts though the first one's lease is not acknowledged.
        await().atMost(PATIENCE).until(() -> started.get() == 2);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 2);
        assertThat(committed(consumer)).isNull();

        producer.completeNext(); // a's lease
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
        producer.completeNext(); // b's
        await().atMost(PATIENCE).until(() -> committed(consumer).offset() == 2);
    }

    @Test
    void shouldReadABatchAgainWhenTheRecordThatLeasedItFailed() {
        finish.release(1); // a returns at once: its completion is its lease
        TaskLogConsumer consumer = start(List.of(task("a", "t-a")), 1, Duration.ofSeconds(1));
        await().atMost(PATIENCE).until(() -> kindsSent().size() == 1);

        // Not a failure that passes (those are sent again: the next case), so the completion is lost.
        producer.errorNext(new org.apache.kafka.common.errors.RecordTooLargeException("lost"));

        // Its offset is not committed past the lost completion: the task is read again and runs again.
        await().atMost(PATIENCE).until(() -> started.get() == 2);
        assertThat(committed(consumer)).isNull();
        finish.release(1);
        await().atMost(PATIENCE).until(() -> kindsSent().size() == 2);
        producer.completeNext();
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
    }

    /**
     * h/adv26: a completion whose send timed out (the broker away longer than the producer waits) was dropped, and its
     * task run again. It is sent again instead; the lease it carries is proven, and the offset committed, when the broker
     * takes it, and the task does not run again.
     */
    @Test
    void shouldSendAgainACompletionThatLeasedItsBatchWhenItsSendTimedOut() {
        finish.release(1);
        TaskLogConsumer consumer = start(List.of(task("a", "t-a")), 1, Duration.ofSeconds(1));
        await().atMost(PATIENCE).until(() -> kindsSent().size() == 1);

        producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("Topic baton.worker-events not present in metadata"));

        await().atMost(PATIENCE).until(() -> kindsSent().size() == 2);
        assertThat(committed(consumer)).isNull();
        producer.completeNext();
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
        assertThat(started).as("runs of the task").hasValue(1);
        assertThat(kindsSent()).containsExactly(WorkerEventKind.COMPLETED, WorkerEventKind.COMPLETED);
    }

    @Test
    void shouldNotCommitPastARunningTaskReadAgainUntilItsLeaseIsAcknowledged() {
        // Adversary, issue 29: a long run's LEASED is lost (its send failed), so its batch is read again; the
        // task, still running here, is skipped as a copy. Its offset was then committed with the next batch
        // although no record leasing the run had reached the site: a worker crash after that left the site
        // pending with no deadline and its task never read again (a caller never answered).
        TaskLogConsumer consumer = start(List.of(task("a", "t-a")));
        await().atMost(PATIENCE).until(() -> started.get() == 1);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 1);

        producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("lease lost"));

        // Read again, the running task is not run twice, but leased again, and its offset waits for that lease.
        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> committed(consumer) == null);
        assertThat(leasesSent()).hasSize(2);
        assertThat(started.get()).isEqualTo(1);
        producer.completeNext();
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
    }

    @Test
    void shouldNotCommitPastARunningTaskWhosePartitionCameBackBeforeItsLeaseWasAcknowledged() {
        // The partition is revoked while the run's LEASED is unacknowledged (settling gives up after its wait and
        // commits nothing), then handed back to this worker: the task is read again from the committed offset.
        // Before: when that LEASED failed, the task read again was skipped and its offset committed.
        TaskLogConsumer consumer = start(List.of(task("a", "t-a")));
        await().atMost(PATIENCE).until(() -> started.get() == 1);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 1);
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        synchronized (consumer) {
            consumer.rebalance(List.of());
            consumer.rebalance(List.of(partition));
        }

        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> committed(consumer) == null);
        producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("lease lost"));
        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> committed(consumer) == null);
        assertThat(leasesSent()).hasSize(2);
        producer.completeNext();
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 1);
        assertThat(started.get()).isEqualTo(1);
    }

    @Test
    void shouldNotRunACopyOfATaskItRunsAlready() {
        // The streams app republished the task with the same token (a restart found its step applied).
        TaskLogConsumer consumer = start(List.of(task("a", "same-token"), task("a", "same-token")));

        await().atMost(PATIENCE).until(() -> started.get() == 1);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 1);
        producer.completeNext();
        // Both records handled: the batch's offsets are committed.
        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 2);
        assertThat(leasesSent()).as("one lease for the task and its copy").hasSize(1);
        assertThat(started.get()).isEqualTo(1);
    }

    @Test
    void shouldLetTheCompletionOfAShortRunBeItsLease() {
        finish.release(2); // the handlers return at once, well within a deferral this long even on a loaded machine
        Duration deferral = Duration.ofSeconds(1);
        TaskLogConsumer consumer = start(List.of(task("a", "t-a"), task("b", "t-b")), deferral);

        await().atMost(PATIENCE).until(() -> kindsSent().size() == 2);
        assertThat(kindsSent()).containsOnly(WorkerEventKind.COMPLETED);
        assertThat(committed(consumer)).as("offsets wait for the completions that lease the runs").isNull();
        producer.completeNext();
        producer.completeNext();

        await().atMost(PATIENCE).until(() -> committed(consumer) != null && committed(consumer).offset() == 2);
        await().during(deferral.multipliedBy(2)).atMost(PATIENCE).until(() -> leasesSent().isEmpty());
    }

    @Test
    void shouldSendTheLeaseOfALongRunBeforeItsCompletion() {
        start(List.of(task("a", "t-a")));
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 1);

        finish.release();

        await().atMost(PATIENCE).until(() -> kindsSent().size() == 2);
        assertThat(kindsSent()).containsExactly(WorkerEventKind.LEASED, WorkerEventKind.COMPLETED);
        producer.completeNext(); // acknowledged: the loop commits and stops at once
        producer.completeNext();
    }

    @Test
    void shouldLeaseAtOnceWithoutADeferral() {
        start(List.of(task("a", "t-a")), Duration.ZERO);

        await().atMost(PATIENCE).until(() -> started.get() == 1);
        await().atMost(PATIENCE).until(() -> leasesSent().size() == 1);
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
