package dev.baton.worker.internals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's {@link MockConsumer} over a fixed log of one partition: each poll returns up to
 * {@code maxPollRecords} records from the consumer's position on, as a broker does, so a queue loop
 * that rewinds (seeks back) gets its leftover tasks again. MockConsumer alone hands each added
 * record out once, whatever the position. The first poll takes the partition (the group's
 * assignment); {@code beforeFirstRecords} runs once, in the polling thread, before the first poll
 * that returns records.
 */
final class TaskLogConsumer extends MockConsumer<byte[], byte[]> {

    private final TopicPartition partition;
    private final TreeMap<Long, ConsumerRecord<byte[], byte[]>> log = new TreeMap<>();
    private final int maxPollRecords;
    private final Runnable beforeFirstRecords;
    private boolean recordsReturned;

    TaskLogConsumer(String topic, List<byte[]> values, int maxPollRecords, Runnable beforeFirstRecords) {
        super("earliest");
        this.partition = new TopicPartition(topic, 0);
        this.maxPollRecords = maxPollRecords;
        this.beforeFirstRecords = beforeFirstRecords;
        for (int offset = 0; offset < values.size(); offset++) {
            log.put((long) offset, new ConsumerRecord<>(topic, 0, offset, ("key-" + offset).getBytes(), values.get(offset)));
        }
        updateBeginningOffsets(Map.of(partition, 0L));
    }

    @Override
    public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        if (assignment().isEmpty() && subscription().contains(partition.topic())) {
            rebalance(List.of(partition));
        }
        if (assignment().contains(partition) && !paused().contains(partition)) {
            List<ConsumerRecord<byte[], byte[]>> next = new ArrayList<>(log.tailMap(position(partition), true).values());
            next = next.subList(0, Math.min(maxPollRecords, next.size()));
            if (!next.isEmpty() && !recordsReturned) {
                recordsReturned = true;
                beforeFirstRecords.run();
            }
            next.forEach(this::addRecord);
        }
        return super.poll(timeout);
    }
}
