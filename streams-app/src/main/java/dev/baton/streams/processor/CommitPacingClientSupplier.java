package dev.baton.streams.processor;

import java.time.Clock;
import java.util.Map;

import dev.baton.streams.config.CommitPacing;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * Kafka Streams' clients as it would make them, with the signals a commit pacing needs: for
 * {@code returns} each producer reports commit starts to its thread's {@link CommitPacer}; for
 * {@code drained} each main consumer reports its polls, and each producer its commits' ends, to its
 * thread's {@link InputDrain}.
 */
public final class CommitPacingClientSupplier implements KafkaClientSupplier {

    private final CommitPacing pacing;

    public CommitPacingClientSupplier(CommitPacing pacing) {
        this.pacing = pacing;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        if (pacing == CommitPacing.DRAINED) {
            return new CommitEndSignallingProducer(config, Clock.systemUTC());
        }
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        return pacing == CommitPacing.RETURNS ? new CommitSignallingProducer(producer, Clock.systemUTC()) : producer;
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return pacing == CommitPacing.DRAINED ? new DrainSignallingConsumer(config, Clock.systemUTC()) : plainConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return plainConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return plainConsumer(config);
    }

    private static Consumer<byte[], byte[]> plainConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
