package dev.baton.topics;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the records addressed to one id: the partition of {@code topic} its key maps to
 * ({@link BatonTopics#keyPartition}), assigned by hand, with the records of other ids that share the
 * partition left out. A client's results and a worker's control records are read this way.
 *
 * <p>The reader wraps a consumer its owner made (so the owner chooses its settings and keeps the
 * rest of its API: commits, pauses, seeks) and assigns it the one partition. Not thread-safe, as the
 * consumer is not.
 */
public final class KeyedPartitionReader {

    /** Where reading starts. */
    public enum Start {
        /** At the end of the partition: what was addressed to the id before it started is not its business. */
        END,
        /** At the group's committed offset, else where {@code auto.offset.reset} says. */
        COMMITTED
    }

    private final Consumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final byte[] key;

    private KeyedPartitionReader(Consumer<byte[], byte[]> consumer, TopicPartition partition, String key) {
        this.consumer = consumer;
        this.partition = partition;
        this.key = key.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Finds {@code key}'s partition of {@code topic} and assigns it to {@code consumer}.
     *
     * @throws IllegalStateException if the topic does not exist (the message says how to create it)
     */
    public static KeyedPartitionReader open(Consumer<byte[], byte[]> consumer, String topic, String key, Duration timeout) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
        if (partitions == null || partitions.isEmpty()) {
            throw new IllegalStateException(topic + " does not exist; create Baton's topics with `baton topics create`");
        }
        TopicPartition tp = new TopicPartition(topic, BatonTopics.keyPartition(key, partitions.size()));
        consumer.assign(List.of(tp));
        return new KeyedPartitionReader(consumer, tp, key);
    }

    /**
     * Finds {@code key}'s partition of {@code topic} without assigning it: for a consumer that takes its
     * partitions as a group member ({@code subscribe}) and reads only this one of them.
     *
     * @throws IllegalStateException if the topic does not exist (the message says how to create it)
     */
    public static KeyedPartitionReader unassigned(Consumer<byte[], byte[]> consumer, String topic, String key, Duration timeout) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
        if (partitions == null || partitions.isEmpty()) {
            throw new IllegalStateException(topic + " does not exist; create Baton's topics with `baton topics create`");
        }
        return new KeyedPartitionReader(consumer, new TopicPartition(topic, BatonTopics.keyPartition(key, partitions.size())), key);
    }

    /** Positions the reader as {@code start} says and returns the offset it will read next. */
    public long position(Start start, Duration timeout) {
        if (start == Start.END) {
            consumer.seekToEnd(List.of(partition));
        }
        return consumer.position(partition, timeout);
    }

    /** The next records addressed to the key, in offset order; the others of the partition are skipped. */
    public List<ConsumerRecord<byte[], byte[]>> poll(Duration timeout) {
        List<ConsumerRecord<byte[], byte[]>> mine = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
            if (r.key() != null && Arrays.equals(key, r.key())) {
                mine.add(r);
            }
        }
        return mine;
    }

    /** The one partition read. */
    public TopicPartition partition() {
        return partition;
    }
}
