package dev.baton.morsel.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic, or some of its partitions, up to the end offsets of the moment (committed
 * records only). No consumer group: nothing is committed, and a scan never moves anyone's position.
 */
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
        forEach(ClientConfigs.bootstrap(bootstrap), topic, p -> true, visitor);
    }

    /**
     * The number of partitions of {@code topic}, with these client settings (security included).
     *
     * @throws IllegalStateException if the topic does not exist
     */
    public static int partitionCount(Map<String, Object> clientConfig, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(clientConfig)) {
            return partitionsOf(consumer, topic).size();
        }
    }

    /**
     * Visits the records of the partitions {@code partitions} accepts, from the beginning to the end
     * offsets of the moment, with these client settings (security included; keys Kafka does not know
     * are left out).
     *
     * @throws IllegalStateException if the topic does not exist, or no record arrives for a minute before the end
     */
    public static void forEach(Map<String, Object> clientConfig, String topic, IntPredicate partitions,
                               Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(clientConfig)) {
            List<TopicPartition> chosen = partitionsOf(consumer, topic).stream().filter(tp -> partitions.test(tp.partition()))
                    .collect(Collectors.toList());
            consumer.assign(chosen);
            consumer.seekToBeginning(chosen);
            Map<TopicPartition, Long> end = consumer.endOffsets(chosen);
            long lastProgress = System.nanoTime();
            while (chosen.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
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

    private static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> clientConfig) {
        return new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitionsOf(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<TopicPartition> all = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
        if (all.isEmpty()) {
            throw new IllegalStateException(topic + " does not exist; create Baton's topics with `baton topics create`");
        }
        return all;
    }
}
