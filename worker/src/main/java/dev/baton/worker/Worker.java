package dev.baton.worker;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerStatus;
import dev.baton.metrics.BatonMetric;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.internals.ActivityPool;
import dev.baton.worker.internals.ActivityRunner;
import dev.baton.worker.internals.ControlListener;
import dev.baton.worker.internals.EventSender;
import dev.baton.worker.internals.Execution;
import dev.baton.worker.internals.Executions;
import dev.baton.worker.internals.Heartbeater;
import dev.baton.worker.internals.InFlightMeter;
import dev.baton.worker.internals.QueueRunner;
import dev.baton.worker.internals.Registration;
import dev.baton.worker.internals.Slots;
import dev.baton.worker.internals.TimedHandlers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker process's runtime: serves queues with a bounded pool of activity threads.
 *
 * <pre>{@code
 * Worker worker = Worker.start(WorkerOptions.builder().bootstrapServers("localhost:9092")
 *         .queues("payments").handler("charge", (ctx, input) -> charge(input)).build());
 * ...
 * worker.close(); // drain: finish within drainTimeout, park the rest
 * }</pre>
 *
 * <p>{@link #close()} is the drain: it stops fetching, lets running activities finish within the
 * drain timeout, then interrupts the rest and reports them {@code parked}, so Baton re-delivers the
 * same attempt elsewhere without recording a failure or consuming a retry. Thread-safe.
 */
public final class Worker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final WorkerOptions options;
    private final SchemaRegistry registry;
    private final Executions executions = new Executions();
    private final EventSender events;
    private final Registration registration;
    private final ControlListener control;
    private final List<QueueRunner> runners = new ArrayList<>();
    private final ActivityPool pool;
    private final ScheduledExecutorService housekeeping;
    private final AtomicInteger threadCount = new AtomicInteger();
    private final Heartbeater heartbeater;
    /** The worker's own Kafka clients' metrics ({@code kafka_consumer_*}, {@code kafka_producer_*}) on its registry. */
    private final ClientMeters clientMeters;
    private volatile boolean draining;
    private volatile boolean closed;

    private Worker(WorkerOptions options) {
        this.options = options;
        this.clientMeters = new ClientMeters(options.meters());
        Clock clock = Clock.systemUTC();
        this.registry = SchemaRegistry.forUrl(options.schemaRegistryUrl(), options.kafkaConfig());
        this.events = new EventSender(options.kafkaConfig(), EventSerde.of(WorkerEvent.class, registry), options.workerId(), clock,
                new ReportLimits(options.maxPayloadBytes()), clientMeters);
        this.registration = new Registration(options.kafkaConfig(), EventSerde.of(WorkerStatus.class, registry), options.workerId(),
                this::servedQueues, options.nodeLabels(), options.maxConcurrent(), executions::size, () -> draining, clock, clientMeters);
        this.control = new ControlListener(options.workerId(), options.kafkaConfig(), EventSerde.of(WorkerControl.class, registry), executions,
                clientMeters);
        this.pool = new ActivityPool(options.maxConcurrent(),
                r -> daemon(r, "baton-activity-" + options.workerId() + "-" + threadCount.incrementAndGet()));
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "baton-housekeeping-" + options.workerId()));
        this.heartbeater = new Heartbeater(executions, events, clock);
        InFlightMeter.add(options.meters(), executions);
        Slots slots = new Slots(options.maxConcurrent()); // shared: all queue loops together hold at most maxConcurrent
        ActivityRunner runner = new ActivityRunner(TimedHandlers.of(options.handlers(), options.meters()), pool, executions, slots, events,
                options.converters());
        DeadLetters deadLetters = new DeadLetters(EventSerde.of(DeadLetter.class, registry), "worker " + options.workerId(), clock);
        for (String queue : options.queues()) {
            List<String> topics = new ArrayList<>(List.of(BatonTopics.tasks(queue)));
            options.nodeLabels().forEach(label -> topics.add(BatonTopics.tasks(queue, label)));
            runners.add(new QueueRunner(queue, options.workerId(), topics, options.kafkaConfig(), options.leaseMode(),
                    EventSerde.of(ActivityTask.class, registry),
                    events, deadLetters, runner, slots, clock, BatonMetric.WORKER_LEASES.counter(options.meters(), "queue", queue)::increment,
                    this::safePublish, clientMeters));
        }
    }

    /** Builds and starts a worker; returns once it listens for stop requests and is registered. */
    public static Worker start(WorkerOptions options) {
        Worker worker = new Worker(options);
        worker.startThreads();
        return worker;
    }

    private void startThreads() {
        daemon(control, "baton-control-" + options.workerId()).start();
        try {
            control.awaitPositioned(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        registration.publish();
        long regMs = options.registrationInterval().toMillis();
        housekeeping.scheduleAtFixedRate(this::safePublish, regMs, regMs, TimeUnit.MILLISECONDS);
        housekeeping.scheduleAtFixedRate(heartbeater, 20, 20, TimeUnit.MILLISECONDS);
        for (QueueRunner r : runners) {
            daemon(r, "baton-queue-" + options.workerId()).start();
        }
        log.info("worker {} serving {} with {} slots, {} leases", options.workerId(), options.queues(), options.maxConcurrent(),
                options.leaseMode().name().toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * The queues this worker still serves, in the order its options name them. A queue drops out when
     * its task loop ends on its own: another process took this worker id, or the loop failed (both
     * logged at ERROR). Its registration then stops listing the queue, so Baton's census sees it.
     */
    public List<String> servedQueues() {
        return runners.stream().filter(QueueRunner::serving).map(QueueRunner::queue).toList();
    }

    /** Ready to take tasks: every queue loop serving and joined to its group ({@code /ready} of {@code baton worker}). */
    public boolean isReady() {
        return !closed && runners.stream().allMatch(r -> r.serving() && r.joined());
    }

    public String workerId() {
        return options.workerId();
    }

    /** Executions leased by this worker and not yet ended. */
    public int inFlight() {
        return executions.size();
    }

    private void safePublish() {
        try {
            registration.publish();
        } catch (RuntimeException e) {
            log.warn("worker {}: registration refresh failed: {}", options.workerId(), e.toString());
        }
    }

    /**
     * Drains: stops fetching, waits up to the drain timeout for running activities, then interrupts
     * the rest and reports them parked. Tombstones the registration. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        draining = true;
        safePublish();
        // Every loop stops taking tasks first, then each is waited for: stopped one after another, a worker of several
        // queues kept leasing on the later ones while the first settled its leases and left its group (h/adv22w).
        runners.forEach(QueueRunner::stopFetching);
        runners.forEach(r -> r.stop(Duration.ofSeconds(10)));
        long deadline = System.nanoTime() + options.drainTimeout().toNanos();
        while (executions.size() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10); // polling a local counter, not waiting for an event
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int parked = 0;
        for (Execution e : executions.all()) {
            if (e.end(Execution.Phase.PARKED)) {
                events.parked(e);
                e.interrupt();
                parked++;
            }
        }
        events.flush();
        log.info("worker {} drained: {} activities parked", options.workerId(), parked);
        housekeeping.shutdownNow();
        pool.shutdownNow();
        control.stop();
        registration.withdraw();
        registration.close();
        events.close();
        InFlightMeter.remove(options.meters(), executions);
        clientMeters.close();
        registry.close();
    }

    /**
     * Simulates a crash for tests and the demo: threads stop, nothing is reported, no tombstone.
     * Baton must notice through the missing heartbeats.
     */
    public synchronized void kill() {
        closed = true;
        // Silence first: a crashed process reports nothing more, so no activity that finishes while
        // the loops below wind down may send its completion (it did, and the demo's kill lost nothing).
        housekeeping.shutdownNow();
        events.abandon();
        runners.forEach(r -> r.stop(Duration.ZERO));
        for (Execution e : executions.all()) {
            e.end(Execution.Phase.STOPPED);
            e.interrupt();
        }
        pool.shutdownNow();
        control.stop();
        registration.close();
        InFlightMeter.remove(options.meters(), executions);
        clientMeters.close();
        registry.close();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
