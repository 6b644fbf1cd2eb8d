package dev.baton.worker.internals;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.KeyedPartitionReader;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the {@code baton.worker-control} partition this worker's id maps to and obeys stop requests
 * that prove which generation they mean (the fingerprint of its token): the execution is marked
 * cancelled ({@code ctx.isCancelled()}) and its thread interrupted. Starts at the end of the
 * partition: instructions to earlier workers with other ids are not ours.
 */
public final class ControlListener implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ControlListener.class);

    private final String workerId;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final EventSerde<WorkerControl> serde;
    private final Executions executions;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** How long one try to find and position this worker's partition may take before the next try. */
    private final Duration lookupTimeout;
    private volatile boolean running = true;

    public ControlListener(String workerId, Map<String, Object> kafkaConfig, EventSerde<WorkerControl> serde, Executions executions,
                           ClientMeters meters) {
        this(workerId, kafkaConfig, serde, executions, meters, lookupTimeout(kafkaConfig));
    }

    /**
     * One try's timeout: the client's {@code default.api.timeout.ms} when set (Kafka's own bound on a lookup that
     * waits for the broker), 30 s otherwise. Tries repeat until the listener is stopped, so it bounds only how soon a
     * broker that comes up late is noticed.
     */
    private static Duration lookupTimeout(Map<String, Object> kafkaConfig) {
        Object set = kafkaConfig.get(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        if (set == null) {
            return Duration.ofSeconds(30);
        }
        try {
            return Duration.ofMillis(Math.max(1, Long.parseLong(set.toString().trim())));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG + " must be a number of milliseconds, was '"
                    + set + "'", e);
        }
    }

    ControlListener(String workerId, Map<String, Object> kafkaConfig, EventSerde<WorkerControl> serde, Executions executions,
                    ClientMeters meters, Duration lookupTimeout) {
        this.workerId = workerId;
        this.lookupTimeout = lookupTimeout;
        this.serde = serde;
        this.executions = executions;
        this.consumer = meters.consumer(new KafkaConsumer<>(ClientConfigs.assignedReader(kafkaConfig), new ByteArrayDeserializer(),
                new ByteArrayDeserializer()), "worker-control");
    }

    @Override
    public void run() {
        try {
            KeyedPartitionReader reader = openWhileRunning();
            if (reader == null) {
                return; // stopped before the partition could be found
            }
            positioned.countDown();
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(100))) {
                    handle(r);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            log.error("worker {}: control listener stopped: {}", workerId, e.toString(), e);
        } finally {
            positioned.countDown();
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            stopped.countDown();
        }
    }

    /**
     * Finds and positions this worker's partition, trying again until it can or the listener is stopped: a broker not
     * reachable yet (a worker started before Kafka) or a topic not created yet must not leave the worker deaf to stops
     * for good, as giving up after one try did (h/adv22w) while the rest of the worker waited for the broker and served.
     */
    private KeyedPartitionReader openWhileRunning() {
        while (running) {
            try {
                KeyedPartitionReader reader = KeyedPartitionReader.open(consumer, BatonTopics.WORKER_CONTROL, workerId, lookupTimeout);
                reader.position(KeyedPartitionReader.Start.END, lookupTimeout);
                return reader;
            } catch (WakeupException e) {
                throw e;
            } catch (RuntimeException e) {
                log.error("worker {}: cannot read {} yet ({}); stops are not obeyed until it can, trying again", workerId,
                        BatonTopics.WORKER_CONTROL, e.toString());
                try {
                    Thread.sleep(1_000); // a retry back-off, not a wait for an event
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * Obeys one record; a record it cannot read or act on is skipped, logged, and the listener goes on: thrown from
     * here, it ended the loop, and the worker obeyed no stop again (h/adv22w: a site with an empty part).
     */
    void handle(ConsumerRecord<byte[], byte[]> r) {
        WorkerControl control;
        try {
            control = serde.decode(r);
        } catch (UndecodableRecordException e) {
            log.error("worker {}: undecodable control record skipped: {}", workerId, e.getMessage());
            return;
        }
        try {
            handle(control);
        } catch (RuntimeException e) {
            log.error("worker {}: control record at {}-{}@{} skipped: {}", workerId, r.topic(), r.partition(), r.offset(), e.toString());
        }
    }

    private void handle(WorkerControl control) {
        if (control.getKind() != WorkerControlKind.STOP) {
            log.debug("worker {}: control record of kind {} for {} ignored", workerId, control.getKind(), SiteKey.of(control.getSite()));
            return;
        }
        obeyStop(control);
    }

    /** Obeys a stop only with proof: the fingerprint of the generation's token (never the token itself, never logged). */
    private void obeyStop(WorkerControl control) {
        SiteKey site = SiteKey.of(control.getSite());
        if (control.getTokenFingerprint() == null) {
            log.info("worker {}: stop request for {} attempt {} gen {} carries no token fingerprint; nothing stopped ({})", workerId, site,
                    control.getAttempt(), control.getGeneration(), control.getReason());
        } else if (executions.stop(control.getSite(), control.getAttempt(), control.getGeneration(), control.getTokenFingerprint())) {
            log.info("worker {}: stopped {} attempt {} gen {}: {}", workerId, site, control.getAttempt(), control.getGeneration(),
                    control.getReason());
        } else {
            // Usually the execution ended before the request arrived; a fingerprint of another token lands here too.
            log.debug("worker {}: stop request for {} attempt {} gen {} matches no execution held here; nothing stopped ({})", workerId,
                    site, control.getAttempt(), control.getGeneration(), control.getReason());
        }
    }

    public void awaitPositioned(Duration timeout) throws InterruptedException {
        positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public void stop() {
        running = false;
        consumer.wakeup();
        try {
            stopped.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
