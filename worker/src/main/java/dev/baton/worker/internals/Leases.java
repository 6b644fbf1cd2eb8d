package dev.baton.worker.internals;

import java.time.Duration;
import java.util.Collection;
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

    /**
     * A task read again while this worker still runs it (a batch read again, partitions handed back, a
     * streams app's republished copy): it is not started twice, and by default needs nothing more.
     */
    default void rejoin(Execution running, EventSender events) {
    }

    /** Records the batch's leases with its offsets ({@code firstRead}: each partition's first record read, to read it again from). */
    void commit(Map<TopicPartition, OffsetAndMetadata> consumed, Map<TopicPartition, Long> firstRead, ConsumerGroupMetadata group);

    /** Once per loop turn: commits offsets whose leases were acknowledged since (when {@link #commit} does not wait for them). */
    default void commitAcknowledged() {
    }

    /** Before {@code partitions} are handed over or the loop closes: commits, waiting up to {@code patience}, what the leases allow. */
    default void settle(Collection<TopicPartition> partitions, Duration patience) {
    }

    void recover(RuntimeException failure);

    @Override
    void close();
}
