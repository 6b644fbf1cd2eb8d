package dev.baton.worker.internals;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.baton.events.WorkerStatus;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * This worker's row in the compacted {@code baton.workers} topic: published, refreshed, tombstoned on
 * clean exit. It lists the queues the worker still serves, asked anew at each refresh, so a queue
 * whose loop has ended stops counting as served and Baton's census can call it unserved.
 */
public final class Registration implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final EventSerde<WorkerStatus> serde;
    private final String workerId;
    private final Supplier<List<String>> queues;
    private final List<String> labels;
    private final int capacity;
    private final IntSupplier inFlight;
    private final BooleanSupplier draining;
    private final Clock clock;
    private final long startedAt;

    public Registration(Map<String, Object> kafkaConfig, EventSerde<WorkerStatus> serde, String workerId, Supplier<List<String>> queues,
                        List<String> labels, int capacity, IntSupplier inFlight, BooleanSupplier draining, Clock clock, ClientMeters meters) {
        this.producer = meters.producer(new KafkaProducer<>(ClientConfigs.durableProducer(kafkaConfig), new ByteArraySerializer(),
                new ByteArraySerializer()), "worker-registration");
        this.serde = serde;
        this.workerId = workerId;
        this.queues = queues;
        this.labels = labels;
        this.capacity = capacity;
        this.inFlight = inFlight;
        this.draining = draining;
        this.clock = clock;
        this.startedAt = clock.millis();
    }

    public void publish() {
        WorkerStatus status = WorkerStatus.newBuilder().setWorkerId(workerId).setQueues(queues.get()).setNodeLabels(labels)
                .setCapacity(capacity).setInFlight(inFlight.getAsInt()).setDraining(draining.getAsBoolean())
                .setStartedAtMillis(startedAt).setLastSeenMillis(clock.millis()).build();
        producer.send(new ProducerRecord<>(BatonTopics.WORKERS, key(), serde.encode(BatonTopics.WORKERS, status)));
    }

    /** The clean-exit tombstone: the census drops this worker at once instead of waiting for it to go stale. */
    public void withdraw() {
        producer.send(new ProducerRecord<>(BatonTopics.WORKERS, key(), null));
        producer.flush();
    }

    private byte[] key() {
        return workerId.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
