package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.dispatcher.internals.ResultListener;
import dev.baton.dispatcher.internals.ResultsMockConsumer;
import dev.baton.events.DispatchCommand;
import dev.baton.events.Outcome;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A started {@link DispatchClient} on Kafka's {@link MockProducer} and a {@link ResultsMockConsumer},
 * with a {@code mem://} registry of its own, a fixed clock, and the outcomes its
 * {@link UnmatchedResultHandler} received.
 */
final class DispatchClientHarness implements AutoCloseable {

    static final String CLIENT_ID = "billing-1";
    static final int PARTITIONS = 12;
    static final int OWN_PARTITION = ResultListener.partitionFor(CLIENT_ID, PARTITIONS);
    static final Instant NOW = Instant.parse("2030-05-01T12:00:00Z");
    static final Duration WAIT = Duration.ofSeconds(5);

    final FailingProducer producer;
    final ResultsMockConsumer consumer = new ResultsMockConsumer(PARTITIONS);
    final List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final DispatchClient client;
    volatile Map<String, Object> producerConfig;

    private final SchemaRegistry registry;
    private final EventSerde<DispatchCommand> commands;
    private final EventSerde<Outcome> outcomes;

    private DispatchClientHarness(Map<String, ?> settings, boolean autoAck) {
        String url = "mem://" + UUID.randomUUID();
        registry = SchemaRegistry.forUrl(url, Map.of());
        commands = EventSerde.of(DispatchCommand.class, registry);
        outcomes = EventSerde.of(Outcome.class, registry);
        producer = new FailingProducer(autoAck);
        client = new DispatchClient(new DispatchClientConfig(configs(url, settings)), unmatched::add, Clock.fixed(NOW, ZoneOffset.UTC),
                meters, config -> {
                    producerConfig = config;
                    return producer;
                }, config -> consumer);
    }

    static Map<String, Object> configs(String registryUrl, Map<String, ?> settings) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(DispatchClientConfig.CLIENT_ID_CONFIG, CLIENT_ID);
        configs.put(DispatchClientConfig.SCHEMA_REGISTRY_URL_CONFIG, registryUrl);
        configs.putAll(settings);
        return configs;
    }

    /** A client whose sends the broker acknowledges at once. */
    static DispatchClientHarness start(Map<String, ?> settings) {
        return new DispatchClientHarness(settings, true);
    }

    static DispatchClientHarness start() {
        return start(Map.of());
    }

    /** A client whose sends wait for {@code producer.completeNext()} or {@code errorNext(...)}. */
    static DispatchClientHarness startWithManualAcks() {
        return new DispatchClientHarness(Map.of(), false);
    }

    List<ProducerRecord<byte[], byte[]>> sent() {
        return producer.history();
    }

    /** The command of the {@code i}-th record sent, decoded. */
    DispatchCommand command(int i) {
        ProducerRecord<byte[], byte[]> record = producer.history().get(i);
        return commands.decode(record.topic(), record.value());
    }

    DispatchCommand onlyCommand() {
        assertThat(producer.history()).hasSize(1);
        return command(0);
    }

    /** Appends a result keyed by {@code key} to this client's results partition. */
    void deliver(String key, Outcome event) {
        consumer.addResult(OWN_PARTITION, key, outcomes.encode(BatonTopics.RESULTS, event));
    }

    /** Delivers an unmatched outcome and waits for the handler: every result delivered before it has been handled. */
    void awaitResultsHandled() {
        String marker = "marker-" + UUID.randomUUID();
        deliver(CLIENT_ID, OutcomeEvents.completed(marker, CLIENT_ID).build());
        await().atMost(WAIT).until(() -> unmatched.stream().anyMatch(o -> o.requestId().equals(marker)));
        unmatched.removeIf(o -> o.requestId().equals(marker));
    }

    /** A valid request for site {@code payments/order-42/3} on queue {@code payments}. */
    static ActivityRequest.Builder request() {
        return ActivityRequest.builder().site("payments", "order-42", "3").queue("payments").activityType("charge");
    }

    /** The exception a failed future holds, unwrapped; an assertion error if it is not failed within {@link #WAIT}. */
    static Throwable failureOf(CompletableFuture<?> future) {
        // failsWithin alone also passes when get() times out, and the join below would then wait forever.
        assertThat(future).failsWithin(WAIT).withThrowableOfType(ExecutionException.class);
        return future.handle((v, e) -> e).join();
    }

    @Override
    public void close() {
        client.close();
        registry.close();
    }

    /**
     * A {@link MockProducer} that can also fail a send as {@code KafkaProducer} does when it has no metadata for the topic
     * within {@code max.block.ms}: the callback is called inside {@code send()}, and the record never enters the producer.
     */
    static final class FailingProducer extends MockProducer<byte[], byte[]> {
        /** When set, the next sends fail inside {@code send()} with it. */
        volatile RuntimeException failInsideSend;

        FailingProducer(boolean autoAck) {
            super(autoAck, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<byte[], byte[]> record, org.apache.kafka.clients.producer.Callback callback) {
            RuntimeException failure = failInsideSend;
            if (failure == null) {
                return super.send(record, callback);
            }
            callback.onCompletion(null, failure);
            return java.util.concurrent.CompletableFuture.failedFuture(failure);
        }
    }
}
