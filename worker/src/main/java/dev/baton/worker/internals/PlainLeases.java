package dev.baton.worker.internals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases without a transaction ({@link dev.baton.worker.LeaseMode#PLAIN}): each {@code LEASED} event
 * goes out on the worker's event producer, the one its run's heartbeats and result use, so they reach
 * the streams app in order. The handler starts at once. The batch's offsets are committed only once
 * every lease of the batch is acknowledged: offsets committed ahead of a lease that never arrived
 * would leave a site waiting for a worker that is gone, with no heartbeat deadline armed. Not
 * thread-safe: the queue loop's thread alone uses it.
 */
final class PlainLeases implements Leases {

    private static final Logger log = LoggerFactory.getLogger(PlainLeases.class);
    /** How long the loop waits for a batch's leases to be acknowledged before it gives the batch up. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);

    private final EventSender events;
    private final Consumer<byte[], byte[]> consumer;
    private final String owner;
    private final List<Future<RecordMetadata>> sent = new ArrayList<>();

    PlainLeases(EventSender events, Consumer<byte[], byte[]> consumer, String owner) {
        this.events = events;
        this.consumer = consumer;
        this.owner = owner;
    }

    @Override
    public boolean startsOnRead() {
        return true;
    }

    @Override
    public void init() {
    }

    @Override
    public void begin() {
        sent.clear();
    }

    @Override
    public void send(ProducerRecord<byte[], byte[]> record) {
        sent.add(events.send(record));
    }

    /** Waits for the batch's leases, then commits its offsets without waiting (a lost commit only makes a task run twice). */
    @Override
    public void commit(Map<TopicPartition, OffsetAndMetadata> consumed, ConsumerGroupMetadata group) {
        long deadline = System.nanoTime() + ACK_TIMEOUT.toNanos();
        try {
            for (Future<RecordMetadata> f : sent) {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException(owner + ": interrupted while waiting for leases to be acknowledged", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException(owner + ": a lease was not acknowledged (" + e + "); the batch's offsets stay uncommitted", e);
        } finally {
            sent.clear();
        }
        if (!consumed.isEmpty()) {
            consumer.commitAsync(consumed, (offsets, e) -> {
                if (e != null) {
                    log.warn("{}: committing leased offsets failed ({}); their tasks may run again elsewhere, and the token decides", owner,
                            e.toString());
                }
            });
        }
    }

    @Override
    public void recover(RuntimeException failure) {
        sent.clear();
    }

    @Override
    public void close() {
    }
}
