package dev.baton.worker.internals;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional producer of one queue loop's lease transactions, and the way back from a failed
 * one. Most failures end in an abort. Some leave a transaction an abort cannot touch: a commit that
 * timed out may still complete, so Kafka refuses to abort it (an {@link IllegalStateException}, not
 * a {@link KafkaException}). Then the producer is replaced: the new one's {@code initTransactions}
 * bumps the epoch of the same transactional id, which finishes or aborts whatever the old one left
 * open before any new lease is sent. Only two failures end the loop: another process took this
 * transactional id (two workers run with one worker id), or the broker refuses this worker's id.
 * Not thread-safe: the queue loop's thread alone uses it.
 */
final class LeaseTransactions implements Leases {

    private static final Logger log = LoggerFactory.getLogger(LeaseTransactions.class);

    private final Supplier<Producer<byte[], byte[]>> factory;
    private final String owner;
    private Producer<byte[], byte[]> producer;

    /** {@code owner} names the worker and queue in log lines and errors. */
    LeaseTransactions(Supplier<Producer<byte[], byte[]>> factory, String owner) {
        this.factory = factory;
        this.owner = owner;
    }

    @Override
    public boolean startsOnRead() {
        return false;
    }

    /**
     * Makes the producer if there is none. Its {@code initTransactions} ends what an earlier process
     * with this worker id left open, so a restarted worker unblocks the readers behind it at once.
     */
    @Override
    public void init() {
        if (producer != null) {
            return;
        }
        Producer<byte[], byte[]> fresh = factory.get();
        try {
            fresh.initTransactions();
        } catch (RuntimeException e) {
            fresh.close(Duration.ZERO);
            throw e;
        }
        producer = fresh;
    }

    /** Begins a transaction, first making (or remaking) the producer if there is none. */
    @Override
    public void begin() {
        init();
        producer.beginTransaction();
    }

    @Override
    public void send(ProducerRecord<byte[], byte[]> record) {
        producer.send(record);
    }

    /** Commits the open transaction with the consumed offsets (none is fine). */
    @Override
    public void commit(Map<TopicPartition, OffsetAndMetadata> consumed, Map<TopicPartition, Long> firstRead, ConsumerGroupMetadata group) {
        if (!consumed.isEmpty()) {
            producer.sendOffsetsToTransaction(consumed, group);
        }
        producer.commitTransaction();
    }

    /**
     * Called after {@link #begin}, {@link #send} or {@link #commit} threw {@code failure}: aborts the
     * transaction, or drops the producer when it cannot abort, so the next {@link #begin} starts
     * clean. Nothing of the failed transaction is visible either way.
     *
     * @throws LeaseFencedException when this worker may not write lease transactions any more
     */
    @Override
    public void recover(RuntimeException failure) {
        checkNotFenced(failure);
        if (producer == null) {
            return; // the failure was making the producer; the next begin tries again
        }
        try {
            producer.abortTransaction();
            return;
        } catch (KafkaException | IllegalStateException e) {
            checkNotFenced(e);
            log.warn("{}: the lease transaction can be neither committed nor aborted ({}); replacing the producer, whose successor "
                    + "ends it before leasing again", owner, e.toString());
        }
        producer.close(Duration.ZERO);
        producer = null;
    }

    /** The producer wraps an earlier fencing in a plain {@link KafkaException}, so the causes count too. */
    private void checkNotFenced(RuntimeException failure) {
        for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof ProducerFencedException) {
                throw new LeaseFencedException(owner + ": another process took over this worker's lease transactions; each worker "
                        + "process needs its own worker id", failure);
            }
            if (e instanceof AuthorizationException) {
                throw new LeaseFencedException(owner + ": the broker refuses this worker's lease transactions (" + e.getMessage()
                        + "); grant it write on its transactional id and the worker-events topic", failure);
            }
        }
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** This worker can no longer lease tasks of the queue; retrying cannot help. */
    static final class LeaseFencedException extends KafkaException {
        LeaseFencedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
