package dev.baton.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Binds the Kafka clients a component creates to its registry with Micrometer's
 * {@link KafkaClientMetrics} ({@code kafka_producer_*}, {@code kafka_consumer_*}: request rates,
 * records lag, buffer use). Each client is labelled by its {@code role} (with the queue, for a queue's
 * clients: {@code worker-tasks/payments}) instead of its client id, which names a process
 * ({@link KafkaClientTags}); a second client of one role in one registry (two workers in one JVM) is
 * {@code role#2}. Close it with the clients: it stops each binder's refresh task and removes their
 * meters. Thread-safe.
 */
public final class ClientMeters implements AutoCloseable {

    private final MeterRegistry registry;
    private final KafkaClientTags tags;
    private final List<KafkaClientMetrics> bound = new ArrayList<>();

    public ClientMeters(MeterRegistry registry) {
        this.registry = registry;
        this.tags = KafkaClientTags.installOn(registry);
    }

    /** Binds {@code producer}'s metrics, labelled {@code role}, and returns it. */
    public <P extends Producer<?, ?>> P producer(P producer, String role) {
        tags.name(clientId(producer.metrics()), role);
        add(new KafkaClientMetrics(producer));
        return producer;
    }

    /** Binds {@code consumer}'s metrics, labelled {@code role}, and returns it. */
    public <C extends Consumer<?, ?>> C consumer(C consumer, String role) {
        tags.name(clientId(consumer.metrics()), role);
        add(new KafkaClientMetrics(consumer));
        return consumer;
    }

    /** The client's id, as its own metrics tag it. */
    private static String clientId(Map<MetricName, ? extends Metric> metrics) {
        return metrics.keySet().stream().map(n -> n.tags().get("client-id")).filter(Objects::nonNull).findFirst().orElse("");
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
