package dev.baton.worker.internals;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * How one queue loop records the leases of a poll batch (see {@link dev.baton.worker.LeaseMode}):
 * begin, send the batch's {@code LEASED} events and dead letters, commit them with the batch's
 * offsets; after a failure, {@link #recover} so the next batch starts clean.
 */
interface Leases extends AutoCloseable {

    /** Whether a task's handler starts as soon as its lease is sent, before {@link #commit}. */
    boolean startsOnRead();

    void init();

    void begin();

    void send(ProducerRecord<byte[], byte[]> record);

    /** Leases the execution's task before its handler starts: its {@code LEASED} event, by default at once. */
    default void lease(Execution e, EventSender events) {
        send(events.leaseRecord(e));
    }

    void commit(Map<TopicPartition, OffsetAndMetadata> consumed, ConsumerGroupMetadata group);

    void recover(RuntimeException failure);

    @Override
    void close();
}
