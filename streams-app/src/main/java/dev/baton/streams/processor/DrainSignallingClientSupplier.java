package dev.baton.streams.processor;

import java.time.Clock;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * Kafka Streams' clients as it would make them, with the signals the {@code drained} commit pacing
 * needs: each main consumer reports its polls, and each producer its commits' ends, to its thread's
 * {@link InputDrain}.
 */
public final class DrainSignallingClientSupplier implements KafkaClientSupplier {

    private final Clock clock = Clock.systemUTC();

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return new CommitEndSignallingProducer(config, clock);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return new DrainSignallingConsumer(config, clock);
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
