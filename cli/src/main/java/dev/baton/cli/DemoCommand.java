package dev.baton.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.schemas.EventExamples;
import dev.baton.schemas.EventExamples.Example;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton demo}: everything on the embedded default. For now it proves the foundation —
 * a real broker in-process, Baton's topics, and one event of each schema round-tripped through the
 * {@code kafka://} registry and the broker. The dispatch workload joins it as the core loop lands.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start an embedded Kafka broker, create Baton's topics and round-trip every event type.")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--data-dir", description = "Keep the broker's data here (default: a temp dir deleted on exit)")
    Path dataDir;

    @Option(names = "--partitions", defaultValue = "12", description = "Partitions per topic (default ${DEFAULT-VALUE})")
    int partitions;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        EmbeddedKafka.Builder builder = EmbeddedKafka.builder();
        if (dataDir != null) {
            builder.dataDir(dataDir);
        }
        try (EmbeddedKafka kafka = builder.build().start()) {
            out.printf("broker    embedded KRaft broker on %s (%d ms)%n", kafka.bootstrapServers(), millisSince(started));
            Map<String, Object> client = Map.of("bootstrap.servers", kafka.bootstrapServers());
            try (Admin admin = Admin.create(client)) {
                TopicCreator.Report report = new TopicCreator(admin).create(
                        BatonTopics.all(TopicLayout.defaults().withPartitions(partitions), List.of("payments")));
                out.printf("topics    %s%n", report);
            }
            int failures = roundTripEveryEvent(kafka.bootstrapServers());
            out.printf("%s    %d event types round-tripped, %d failed, %d ms in all%n", failures == 0 ? "ok  " : "FAIL",
                    EventExamples.all().size() - failures, failures, millisSince(started));
            return failures == 0 ? 0 : 1;
        }
    }

    private int roundTripEveryEvent(String bootstrap) {
        Map<String, Object> client = Map.of("bootstrap.servers", bootstrap);
        int failures = 0;
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + bootstrap, Map.of());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(client, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(client, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (Example example : EventExamples.all()) {
                EventSerde<SpecificRecord> serde = serdeFor(example.event(), registry);
                byte[] bytes = serde.encode(example.topic(), example.event());
                RecordMetadata meta = producer.send(new ProducerRecord<>(example.topic(), 0, "demo".getBytes(), bytes)).get();
                SpecificRecord back = serde.decode(readAt(consumer, meta));
                boolean same = Objects.equals(back, example.event());
                failures += same ? 0 : 1;
                out.printf("event     %-16s -> %-24s schema id %-3d %3d bytes  %s%n", example.event().getSchema().getName(),
                        example.topic(), java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt(), bytes.length, same ? "round-trip ok" : "MISMATCH");
            }
        } catch (Exception e) {
            out.println("FAIL      " + e);
            return EventExamples.all().size();
        }
        return failures;
    }

    private static ConsumerRecord<byte[], byte[]> readAt(KafkaConsumer<byte[], byte[]> consumer, RecordMetadata meta) {
        TopicPartition tp = new TopicPartition(meta.topic(), meta.partition());
        consumer.assign(List.of(tp));
        consumer.seek(tp, meta.offset());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.offset() == meta.offset()) {
                    return r;
                }
            }
        }
        throw new IllegalStateException("record at " + tp + "@" + meta.offset() + " not read back within 30 s");
    }

    @SuppressWarnings("unchecked")
    private static EventSerde<SpecificRecord> serdeFor(SpecificRecord event, SchemaRegistry registry) {
        return EventSerde.of((Class<SpecificRecord>) event.getClass(), registry);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
