package dev.baton.worker.internals;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.events.ActivityTask;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.ClientIds;
import dev.baton.worker.CompletionRef;
import dev.baton.worker.LeaseMode;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one queue's task topics in group {@code baton-worker-<queue>}. By default each poll batch
 * is leased in one transaction: the {@code leased} events and the batch's offsets commit together, so
 * a task is leased by exactly one worker even across rebalances (a stale group generation fails the
 * commit, and nothing of that batch runs). One transaction per batch, never per task: a transaction
 * costs milliseconds, one per task would cap a worker at a few hundred tasks per second. With
 * {@link LeaseMode#PLAIN} the handlers start as the tasks are read ({@link PlainLeases}).
 */
public final class QueueRunner implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(QueueRunner.class);
    /** Longest wait for a free slot before polling again (paused) to keep the consumer alive. */
    private static final Duration FULL_WAIT = Duration.ofMillis(50);
    /** Longest wait, once a slot is free, for more to free before leasing. */
    private static final Duration REFILL_WAIT = Duration.ofMillis(5);
    /** Longest wait for plain leases' acknowledgements before partitions are handed over: they take a deferral and a round trip. */
    private static final Duration SETTLE_WAIT = Duration.ofSeconds(5);

    private final String queue;
    private final String workerId;
    private final List<String> topics;
    private final Consumer<byte[], byte[]> consumer;
    private final Leases leases;
    private final EventSerde<ActivityTask> tasks;
    private final EventSender events;
    private final DeadLetters deadLetters;
    private final ActivityRunner runner;
    private final Slots slots;
    private final Clock clock;
    private final Runnable leaseCounted;
    private final Runnable servingEnded;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean serving = true;
    private volatile boolean joined;

    public QueueRunner(String queue, String workerId, List<String> topics, Map<String, Object> kafkaConfig, LeaseMode mode,
                       EventSerde<ActivityTask> tasks, EventSender events, DeadLetters deadLetters, ActivityRunner runner, Slots slots,
                       Clock clock, Runnable leaseCounted, Runnable servingEnded, ClientMeters meters) {
        this(queue, workerId, topics, meters.consumer(consumer(queue, workerId, kafkaConfig, slots.capacity()), "worker-tasks/" + queue), mode, kafkaConfig, meters,
                tasks, events, deadLetters, runner, slots, clock, leaseCounted, servingEnded);
    }

    private QueueRunner(String queue, String workerId, List<String> topics, Consumer<byte[], byte[]> consumer, LeaseMode mode,
                        Map<String, Object> kafkaConfig, ClientMeters meters, EventSerde<ActivityTask> tasks, EventSender events,
                        DeadLetters deadLetters, ActivityRunner runner, Slots slots, Clock clock, Runnable leaseCounted, Runnable servingEnded) {
        this(queue, workerId, topics, consumer, mode == LeaseMode.PLAIN ? new PlainLeases(events, consumer, owner(workerId, queue))
                : leaseTransactions(queue, workerId, kafkaConfig, meters), tasks, events, deadLetters, runner, slots, clock, leaseCounted,
                servingEnded);
    }

    private static String owner(String workerId, String queue) {
        return "worker " + workerId + " queue " + queue;
    }

    /** On clients of the caller's: tests pass Kafka's {@code MockConsumer} and {@code MockProducer}. */
    QueueRunner(String queue, String workerId, List<String> topics, Consumer<byte[], byte[]> consumer, Leases leases,
                EventSerde<ActivityTask> tasks, EventSender events, DeadLetters deadLetters, ActivityRunner runner, Slots slots,
                Clock clock, Runnable leaseCounted, Runnable servingEnded) {
        this.leaseCounted = leaseCounted;
        this.servingEnded = servingEnded;
        this.queue = queue;
        this.workerId = workerId;
        this.topics = topics;
        this.consumer = consumer;
        this.leases = leases;
        this.tasks = tasks;
        this.events = events;
        this.deadLetters = deadLetters;
        this.runner = runner;
        this.slots = slots;
        this.clock = clock;
    }

    private static Consumer<byte[], byte[]> consumer(String queue, String workerId, Map<String, Object> kafkaConfig, int maxPollRecords) {
        Map<String, Object> c = ClientConfigs.groupConsumer(kafkaConfig, ClientIds.workerGroup(queue), "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        c.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, workerId + "-" + queue);
        // A crashed worker's partitions move after the session timeout; the 45 s default would leave
        // re-delivered tasks of those partitions waiting that long.
        c.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        c.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2_000);
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static LeaseTransactions leaseTransactions(String queue, String workerId, Map<String, Object> kafkaConfig, ClientMeters meters) {
        Map<String, Object> p = ClientConfigs.transactionalProducer(kafkaConfig, ClientIds.workerTransactionalId(queue, workerId));
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.putIfAbsent(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 5);
        // A worker killed inside a lease transaction leaves it open, and read_committed readers of
        // worker-events (the streams app) stall on those partitions until the broker aborts it. A
        // lease transaction lasts milliseconds; the 60 s default would stall every site behind it.
        p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
        return new LeaseTransactions(() -> meters.producer(new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()), "worker-leases/" + queue),
                owner(workerId, queue));
    }

    @Override
    public void run() {
        try {
            initTransactions();
            consumer.subscribe(topics, new JoinListener());
            while (running) {
                leases.commitAcknowledged();
                ConsumerRecords<byte[], byte[]> records = consumer.poll(applyBackpressure() ? Duration.ZERO : Duration.ofMillis(50));
                if (!records.isEmpty()) {
                    lease(records).forEach(this::start);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (WakeupException e) {
            if (running) {
                log.error("worker {} queue {}: woken while running", workerId, queue, e);
            }
        } catch (LeaseTransactions.LeaseFencedException e) {
            log.error("{}. This worker stops serving queue {} and no longer registers it.", e.getMessage(), queue);
        } catch (RuntimeException e) {
            log.error("worker {} queue {}: task loop stopped; this worker no longer registers the queue: {}", workerId, queue,
                    e.toString(), e);
        } finally {
            settle(consumer.assignment());
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            leases.close();
            if (running) { // ended unasked: no longer served by this worker (a stopped loop drains, and says so)
                serving = false;
                servingEnded.run();
            }
            stopped.countDown();
        }
    }

    /** A broker that cannot be reached yet is no reason to stop: the first lease tries again. */
    private void initTransactions() {
        try {
            leases.init();
        } catch (KafkaException e) {
            leases.recover(e);
            log.warn("worker {} queue {}: lease transactions not ready ({}); the first lease tries again", workerId, queue, e.toString());
        }
    }

    private void start(Execution e) {
        leaseCounted.run();
        runner.submit(e);
    }

    public String queue() {
        return queue;
    }

    /** Whether this loop's consumer has joined its group and received an assignment (possibly empty): the worker's /ready. */
    public boolean joined() {
        return joined;
    }

    /** Notes the first assignment; the loop's own handling of partitions is unchanged. */
    private final class JoinListener implements org.apache.kafka.clients.consumer.ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {
            joined = true;
        }

        @Override
        public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
            settle(partitions);
        }
    }

    /** Commits what the leases of {@code partitions} allow before they are handed over (or the loop closes). */
    private void settle(java.util.Collection<TopicPartition> partitions) {
        try {
            leases.settle(partitions, SETTLE_WAIT);
        } catch (RuntimeException e) {
            log.warn("worker {} queue {}: settling leased offsets failed ({}); their tasks may run again elsewhere", workerId, queue,
                    e.toString());
        }
    }

    /** False once the loop has ended unasked: fenced by a twin or failed. Its worker stops registering the queue. */
    public boolean serving() {
        return serving;
    }

    /**
     * Pauses fetching while the worker's slots are all taken (by this queue loop or another), instead
     * of blocking poll() (which would cost the group membership), and waits for a slot here: poll() on
     * paused partitions sleeps its whole timeout however soon a slot frees, which capped a 256-slot
     * worker of quick activities at 256 per 50 ms. Returns true while still full, so the caller polls
     * without waiting.
     */
    private boolean applyBackpressure() throws InterruptedException {
        if (slots.free() == 0) {
            consumer.pause(consumer.assignment());
            if (!slots.awaitFree(1, FULL_WAIT)) {
                return true;
            }
            // A slot is free. Give a quarter of them a moment to free too, so the next lease transaction
            // carries a batch rather than a task (one slot per transaction cost a third of the throughput).
            slots.awaitFree(slots.capacity() / 4 + 1, REFILL_WAIT);
        }
        if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
        return false;
    }

    /**
     * Leases as many of the batch's tasks as it can take slots for, in one transaction with their
     * offsets, and rewinds each partition to its first task left over: a poll returns up to
     * {@code maxConcurrent} records whatever is free, and a task leased without a slot would wait in
     * this worker's queue while another worker sat idle. The slots are taken before the lease, from
     * the worker's pool shared with its other queue loops; each leased execution keeps one, and the
     * rest go back when the transaction ends, all of them when it failed.
     */
    private List<Execution> lease(ConsumerRecords<byte[], byte[]> records) {
        int taken = slots.tryTake(records.count());
        if (taken == 0) {
            // Another queue loop of this worker took the free slots since this one polled.
            rewind(records);
            return List.of();
        }
        Map<ConsumerRecord<byte[], byte[]>, ActivityTask> decoded = decodeAndObeyStops(records);
        List<Execution> leased = new ArrayList<>();
        int kept = 0;
        Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
        Map<TopicPartition, Long> firstRead = new HashMap<>();
        long now = clock.millis();
        boolean startsOnRead = leases.startsOnRead();
        try {
            leases.begin();
            for (TopicPartition tp : records.partitions()) {
                for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                    if (leased.size() >= taken) {
                        consumer.seek(tp, r.offset());
                        break;
                    }
                    consumed.put(tp, new OffsetAndMetadata(r.offset() + 1));
                    firstRead.putIfAbsent(tp, r.offset());
                    Execution e = leaseOrSkip(r, decoded.get(r), now);
                    if (e != null) {
                        leased.add(e);
                        if (startsOnRead) {
                            kept++;
                            start(e);
                        }
                    }
                }
            }
            leases.commit(consumed, firstRead, consumer.groupMetadata());
            if (startsOnRead) {
                return List.of(); // started already
            }
            kept = leased.size();
            return leased;
        } catch (KafkaException | IllegalStateException e) {
            // Plain leases: the runs started go on; re-read, their tasks are skipped while they run, and a
            // run's heartbeat leases its site if its lease was lost.
            log.warn("worker {} queue {}: leasing failed ({}); the batch will be fetched again", workerId, queue, e.toString());
            leases.recover(e);
            rewind(records);
            return List.of();
        } finally {
            slots.giveBack(taken - kept);
        }
    }

    /**
     * Decodes the batch's records and, before any of its tasks starts, obeys the stops among them: a
     * task cancelled or superseded before any worker leased it is followed on its partition by its
     * stop, often in the same batch, and must not start even in plain mode (where tasks start as they
     * are read). A stop read in a later batch stops the run instead. Undecodable records are left out
     * (dead-lettered when leased).
     */
    private Map<ConsumerRecord<byte[], byte[]>, ActivityTask> decodeAndObeyStops(ConsumerRecords<byte[], byte[]> records) {
        Map<ConsumerRecord<byte[], byte[]>, ActivityTask> decoded = new IdentityHashMap<>(records.count() * 2);
        for (ConsumerRecord<byte[], byte[]> r : records) {
            try {
                ActivityTask task = tasks.decode(r);
                decoded.put(r, task);
                if (task.getStopTokenFingerprint() != null && runner.stop(task)) {
                    log.info("worker {}: {} attempt {} gen {} stopped by its task stop (revoked before its lease was known)", workerId,
                            task.getSite(), task.getAttempt(), task.getGeneration());
                }
            } catch (UndecodableRecordException e) {
                // dead-lettered when the lease loop reaches it
            }
        }
        return decoded;
    }

    /** Sends the task's lease into the open transaction; null for a corrupt task (dead-lettered), a stop, or one not to start. */
    private Execution leaseOrSkip(ConsumerRecord<byte[], byte[]> r, ActivityTask decoded, long now) {
        ActivityTask task = decoded;
        if (task == null) {
            try {
                task = tasks.decode(r);
            } catch (UndecodableRecordException e) {
                leases.send(deadLetters.deadLetter(r, e.getMessage()));
                return null;
            }
        }
        if (task.getStopTokenFingerprint() != null) {
            return null; // a stop, obeyed already (decodeAndObeyStops)
        }
        String unrunnable = unrunnable(task);
        if (unrunnable != null) {
            // Thrown from here it ended the loop, and the next worker of the queue ended on the same record (h/adv22w).
            log.error("worker {} queue {}: task at {}-{}@{} cannot be run ({}); dead-lettered", workerId, queue, r.topic(), r.partition(),
                    r.offset(), unrunnable);
            leases.send(deadLetters.deadLetter(r, "task cannot be run: " + unrunnable));
            return null;
        }
        Execution running = runner.running(task.getToken());
        if (running != null) {
            // A copy of a task this worker runs (a streams app running at-least-once republishes after a restart),
            // or the task itself read again: its offset must still wait for a lease of the run (PlainLeases.rejoin).
            leases.rejoin(running, events);
            return null;
        }
        if (runner.stopped(task.getToken())) {
            log.info("worker {}: {} attempt {} gen {} was stopped before this read; not starting it", workerId, task.getSite(),
                    task.getAttempt(), task.getGeneration());
            return null;
        }
        if (task.getDeadlineMillis() != null && now > task.getDeadlineMillis()) {
            log.info("worker {}: {} attempt {} missed its schedule-to-start deadline; not starting it", workerId,
                    task.getSite(), task.getAttempt());
            return null;
        }
        Execution e = new Execution(task, workerId, now);
        leases.lease(e, events);
        return e;
    }

    /**
     * Why a decoded task cannot be run by this worker, or null: its site, attempt, generation and token must make a
     * {@link CompletionRef}, which its lease, heartbeats and reports are built from. The streams app never writes
     * such a task; any other writer of the task topic can.
     */
    static String unrunnable(ActivityTask task) {
        // Checked here rather than by CompletionRef, whose message would echo the token: authority, never logged, and as
        // long as its writer likes (a dead letter over the producer's limit would fail the lease transaction for good).
        if (task.getAttempt() < 1 || task.getGeneration() < 1) {
            return "attempt and generation must be >= 1, were " + task.getAttempt() + " and " + task.getGeneration();
        }
        String token = task.getToken();
        if (token == null || token.isEmpty() || token.indexOf('.') >= 0) {
            return "token must be a non-empty URL-safe string without '.' (" + (token == null ? "none" : token.length() + " characters")
                    + ")";
        }
        try {
            new CompletionRef(SiteKey.of(task.getSite()), task.getAttempt(), task.getGeneration(), token);
            return null;
        } catch (IllegalArgumentException | NullPointerException e) {
            String why = String.valueOf(e.getMessage());
            return why.length() <= 300 ? why : why.substring(0, 300) + "...";
        }
    }

    private void rewind(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            consumer.seek(tp, records.records(tp).get(0).offset());
        }
    }

    /** Stops fetching: the loop takes no task after the one it is on, and leaves its group. Returns at once. */
    public void stopFetching() {
        running = false;
    }

    /** Stops fetching; returns once the loop has left the group. */
    public void stop(Duration timeout) {
        stopFetching();
        try {
            if (!stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                consumer.wakeup();
                stopped.await(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
