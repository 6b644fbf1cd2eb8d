package dev.baton.worker.internals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases without a transaction ({@link dev.baton.worker.LeaseMode#PLAIN}): the handler starts at once,
 * and the run's {@code LEASED} event waits for {@link #DEFERRAL}. A run that reports before then (most
 * do: a completion, a failure, a heartbeat) is leased by that report, which the streams app takes as
 * the generation's lease, and no {@code LEASED} is sent: a short activity costs one worker event, one
 * row write and one history event fewer. Every event of a run goes out on the worker's event producer,
 * so they reach the streams app in order ({@link DeferredLease}).
 *
 * <p>The batch's offsets are committed only once every run of the batch is leased and acknowledged:
 * offsets committed ahead of a lease that never arrived would leave a site waiting for a worker that
 * is gone, with no heartbeat deadline armed. The loop waits for that, at most the deferral and a
 * round trip. Not thread-safe: the queue loop's thread alone uses it (the deferral's timer only sends).
 */
final class PlainLeases implements Leases {

    private static final Logger log = LoggerFactory.getLogger(PlainLeases.class);
    /** How long the loop waits for a batch's leases to be acknowledged before it gives the batch up. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a run may go without a report before its {@code LEASED} is sent. Most activities that
     * finish within it are short ones whose records matter most; the rest pay at most this much later
     * start of their heartbeat deadline, and this much longer for the loop's next poll.
     */
    static final Duration DEFERRAL = Duration.ofMillis(20);

    private final EventSender events;
    private final Consumer<byte[], byte[]> consumer;
    private final String owner;
    private final Duration deferral;
    private final ScheduledExecutorService timer;
    private final List<Future<?>> sent = new ArrayList<>();

    PlainLeases(EventSender events, Consumer<byte[], byte[]> consumer, String owner) {
        this(events, consumer, owner, DEFERRAL);
    }

    /** {@code deferral} zero sends each {@code LEASED} at once. */
    PlainLeases(EventSender events, Consumer<byte[], byte[]> consumer, String owner, Duration deferral) {
        this.events = events;
        this.consumer = consumer;
        this.owner = owner;
        this.deferral = deferral;
        this.timer = deferral.isZero() ? null : Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-lease-deferral " + owner);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void lease(Execution e, EventSender events) {
        if (timer == null) {
            send(events.leaseRecord(e));
            return;
        }
        DeferredLease lease = new DeferredLease();
        e.deferLease(lease);
        sent.add(lease.proven());
        timer.schedule(() -> events.deferredLease(e), deferral.toMillis(), TimeUnit.MILLISECONDS);
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
            for (Future<?> f : sent) {
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
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
