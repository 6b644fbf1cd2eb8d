package dev.baton.metrics;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Binds the Kafka clients a component creates to its registry with Micrometer's
 * {@link KafkaClientMetrics} ({@code kafka_producer_*}, {@code kafka_consumer_*}: request rates,
 * records lag, buffer use). Close it with the clients: it stops each binder's refresh task and
 * removes their meters. Thread-safe.
 */
public final class ClientMeters implements AutoCloseable {

    private final MeterRegistry registry;
    private final List<KafkaClientMetrics> bound = new ArrayList<>();

    public ClientMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Binds {@code producer}'s metrics and returns it. */
    public <P extends Producer<?, ?>> P producer(P producer) {
        add(new KafkaClientMetrics(producer));
        return producer;
    }

    /** Binds {@code consumer}'s metrics and returns it. */
    public <C extends Consumer<?, ?>> C consumer(C consumer) {
        add(new KafkaClientMetrics(consumer));
        return consumer;
    }

    private synchronized void add(KafkaClientMetrics metrics) {
        metrics.bindTo(registry);
        bound.add(metrics);
    }

    @Override
    public synchronized void close() {
        bound.forEach(KafkaClientMetrics::close);
        bound.clear();
    }
}
