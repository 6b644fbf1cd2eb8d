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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityHandler;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue loops of one worker share its {@code maxConcurrent} slots. Kafka's MockConsumer (over a
 * log, {@link TaskLogConsumer}) and MockProducer stand in for the broker; the activity pool and
 * runner are the real ones. Activities block until the test lets them finish, one at a time.
 */
class QueueRunnerSlotsTest {

    private static final int MAX_CONCURRENT = 2;
    private static final int TASKS_PER_QUEUE = 5;
    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://queue-runner-slots", Map.of());
    private final EventSerde<ActivityTask> taskSerde = EventSerde.of(ActivityTask.class, registry);
    private final EventSender events = new EventSender(new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()),
            EventSerde.of(WorkerEvent.class, registry), "w", CLOCK);
    private final DeadLetters deadLetters = new DeadLetters(EventSerde.of(DeadLetter.class, registry), "worker w", CLOCK);
    private final Executions executions = new Executions();
    private final Slots slots = new Slots(MAX_CONCURRENT);
    private final ActivityPool pool = new ActivityPool(MAX_CONCURRENT, r -> daemon(r, "test-activity"));
    /** Activities wait for a permit here; {@link #released} counts the permits handed out. */
    private final Semaphore finish = new Semaphore(0);
    private final AtomicInteger released = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger leased = new AtomicInteger();
    private final AtomicInteger commitsToFail = new AtomicInteger();
    private final AtomicInteger failedCommits = new AtomicInteger();
    private final AtomicInteger commits = new AtomicInteger();
    /** The most executions held at any lease commit: leases committed so far minus activities allowed to finish. */
    private final AtomicInteger mostHeld = new AtomicInteger();
    private final ActivityHandler gated = (ctx, input) -> {
        started.incrementAndGet();
        finish.acquire();
        return input;
    };
    private final ActivityRunner activities = new ActivityRunner(Map.of("gated", gated), pool, executions, slots, events);
    private final List<QueueRunner> runners = new ArrayList<>();

    @AfterEach
    void stop() {
        runners.forEach(r -> r.stop(Duration.ofSeconds(5)));
        finish.release(1_000);
        pool.shutdownNow();
        registry.close();
    }

    @Test
    void shouldNeverHoldMoreExecutionsThanMaxConcurrentAcrossQueues() {
        // Both loops get their first batch at the same moment, with every slot free.
        CyclicBarrier bothPolled = new CyclicBarrier(2);
        QueueRunner a = start("a", tasks("a", TASKS_PER_QUEUE), MAX_CONCURRENT, () -> awaitBarrier(bothPolled));
        QueueRunner b = start("b", tasks("b", TASKS_PER_QUEUE), MAX_CONCURRENT, () -> awaitBarrier(bothPolled));
        int total = 2 * TASKS_PER_QUEUE;

        for (int running = MAX_CONCURRENT; running <= total; running++) { // free one slot at a time
            int expected = running;
            await().atMost(PATIENCE).until(() -> started.get() >= expected);
            allowToFinish(1);
        }
        allowToFinish(total);
        await().atMost(PATIENCE).until(() -> executions.size() == 0);

        assertThat(mostHeld.get()).as("executions held at once by two queue loops with %d slots", MAX_CONCURRENT)
                .isLessThanOrEqualTo(MAX_CONCURRENT);
        assertThat(leased.get()).as("leases committed").isEqualTo(total);
        assertThat(List.of(a.serving(), b.serving())).containsOnly(true);
        assertThat(slots.free()).as("free slots once every activity ended").isEqualTo(MAX_CONCURRENT);
    }

    @Test
    void shouldGiveBackTheSlotsOfAFailedLeaseTransaction() {
        commitsToFail.set(1);
        start("a", tasks("a", MAX_CONCURRENT), MAX_CONCURRENT, () -> { });

        // Had the failed transaction kept its slots, none would be left to lease the batch again.
        await().atMost(PATIENCE).until(() -> started.get() == MAX_CONCURRENT);
        assertThat(failedCommits.get()).as("lease commits failed").isEqualTo(1);
        assertThat(leased.get()).isEqualTo(MAX_CONCURRENT);
        assertThat(slots.free()).isZero();

        allowToFinish(MAX_CONCURRENT);
        await().atMost(PATIENCE).until(() -> slots.free() == MAX_CONCURRENT);
    }

    @Test
    void shouldNotKeepSlotsForSkippedTasks() {
        List<byte[]> batch = new ArrayList<>();
        batch.add(new byte[] {42, 42, 42}); // corrupt: dead-lettered
        batch.add(task("a", 0, CLOCK.millis() - 1)); // past its schedule-to-start deadline
        batch.addAll(tasks("a", MAX_CONCURRENT));
        start("a", batch, batch.size(), () -> { });

        await().atMost(PATIENCE).until(() -> started.get() == MAX_CONCURRENT);
        assertThat(leased.get()).as("leases committed").isEqualTo(MAX_CONCURRENT);
        assertThat(commits.get()).as("lease transactions for the one poll batch").isEqualTo(1);
        assertThat(executions.size()).isEqualTo(MAX_CONCURRENT);
        assertThat(slots.free()).as("free slots while the two leased tasks run").isZero();

        allowToFinish(MAX_CONCURRENT);
        await().atMost(PATIENCE).until(() -> slots.free() == MAX_CONCURRENT);
    }

    private QueueRunner start(String queue, List<byte[]> tasks, int maxPollRecords, Runnable beforeFirstRecords) {
        String topic = BatonTopics.tasks(queue);
        TaskLogConsumer consumer = new TaskLogConsumer(topic, tasks, maxPollRecords, beforeFirstRecords);
        QueueRunner runner = new QueueRunner(queue, "w", List.of(topic), consumer, new LeaseTransactions(CountingProducer::new,
                "worker w queue " + queue), taskSerde, events, deadLetters, activities, slots, CLOCK, () -> { }, () -> { });
        runners.add(runner);
        daemon(runner, "test-queue-" + queue).start();
        return runner;
    }

    private List<byte[]> tasks(String queue, int n) {
        List<byte[]> tasks = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            tasks.add(task(queue, i, null));
        }
        return tasks;
    }

    private byte[] task(String queue, int i, Long deadlineMillis) {
        ActivityTask task = ActivityTask.newBuilder().setSite(new SiteRef("ns", queue + "-wf-" + i, "1")).setAttempt(1).setGeneration(1)
                .setToken(CompletionToken.random().value()).setIdempotencyKey(queue + "-" + i).setQueue(queue).setActivityType("gated")
                .setScheduledAtMillis(CLOCK.millis()).setDeadlineMillis(deadlineMillis).build();
        return taskSerde.encode(BatonTopics.tasks(queue), task);
    }

    /** Counted before the permits exist, so a commit never sees an activity finish that was not yet allowed. */
    private void allowToFinish(int activities) {
        released.addAndGet(activities);
        finish.release(activities);
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the other queue loop never polled its first batch", e);
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** A lease producer that counts the leases each committed transaction carried, and fails the commits it is told to. */
    private final class CountingProducer extends MockProducer<byte[], byte[]> {
        private int counted;

        CountingProducer() {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized void commitTransaction() {
            if (commitsToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                failedCommits.incrementAndGet();
                throw new KafkaException("expected by the test: coordinator moved");
            }
            super.commitTransaction();
            commits.incrementAndGet();
            List<ProducerRecord<byte[], byte[]>> sent = history();
            long leases = sent.subList(counted, sent.size()).stream().filter(r -> r.topic().equals(BatonTopics.WORKER_EVENTS)).count();
            counted = sent.size();
            int held = leased.addAndGet((int) leases) - released.get();
            mostHeld.accumulateAndGet(held, Math::max);
        }
    }
}
