package dev.baton.cli.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a whole topic, every partition, up to the end offsets of the moment (committed records only). */
public final class TopicScan {

    /** Longest wait for the next record before the scan gives up. */
    private static final Duration STALL_LIMIT = Duration.ofSeconds(60);

    private TopicScan() {
    }

    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        forEach(bootstrap, topic, out::add);
        return out;
    }

    /** Visits every record without holding them: a benchmark's history runs to millions of records. */
    public static void forEach(String bootstrap, String topic, Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
        Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "isolation.level", "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long lastProgress = System.nanoTime();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() - lastProgress > STALL_LIMIT.toNanos()) {
                    throw new IllegalStateException("no record of " + topic + " arrived for " + STALL_LIMIT.toSeconds()
                            + " s before its end offsets " + end + "; is the broker up?");
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) {
                    lastProgress = System.nanoTime();
                    records.forEach(visitor);
                }
            }
        }
    }
}
