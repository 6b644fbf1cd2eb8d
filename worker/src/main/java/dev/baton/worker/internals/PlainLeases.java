package dev.baton.worker.internals;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
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
 * <p>A batch's offsets are committed only once every run of the batch, and of every batch before it,
 * is leased and acknowledged: offsets committed ahead of a lease that never arrived would leave a
 * site waiting for a worker that is gone, with no heartbeat deadline armed. The loop does not wait
 * for that: it polls on, and each turn commits the acknowledged batches ({@link #commitAcknowledged}).
 * Waiting there held every task that arrived meanwhile back by the deferral and a round trip, for any
 * batch with one run longer than the deferral. A batch whose lease failed, or was not acknowledged
 * within {@link #ACK_TIMEOUT}, is read again from its first record, and so is every batch after it
 * (runs still going are skipped when read again; the token decides between two runs of one task).
 * Not thread-safe: the queue loop's thread alone uses it (the deferral's timer only sends).
 */
final class PlainLeases implements Leases {

    private static final Logger log = LoggerFactory.getLogger(PlainLeases.class);
    /** How long a batch may wait for its leases to be acknowledged before it is read again. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a run may go without a report before its {@code LEASED} is sent. Most activities that
     * finish within it are short ones whose records matter most; the rest pay at most this much later
     * start of their heartbeat deadline, and their batch's offsets are committed this much later
     * ({@link LeaseDeferrals#SWEEP} more at most: the timer wakes for many leases at once).
     */
    static final Duration DEFERRAL = Duration.ofMillis(20);
    /** How often acknowledged offsets are committed. */
    static final Duration COMMIT_EVERY = Duration.ofMillis(100);

    /** A poll batch waiting for its runs' settling records to be acknowledged before its offsets are committed. */
    private record Batch(List<Future<?>> settling, Map<TopicPartition, OffsetAndMetadata> consumed,
                         Map<TopicPartition, Long> firstRead, long queuedNanos) {

        boolean acknowledged() {
            for (Future<?> f : settling) {
                if (!f.isDone()) {
                    return false;
                }
            }
            return true;
        }

        /** Null when every settling record was acknowledged, else the first send's error. */
        Throwable failure() {
            for (Future<?> f : settling) {
                try {
                    f.get(0, TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    return e.getCause();
                } catch (InterruptedException | TimeoutException e) {
                    return e;
                }
            }
            return null;
        }
    }

    private final EventSender events;
    private final Consumer<byte[], byte[]> consumer;
    private final String owner;
    private final LeaseDeferrals timer;
    private final List<Future<?>> sent = new ArrayList<>();
    private final ArrayDeque<Batch> unacknowledged = new ArrayDeque<>();
    /** Offsets acknowledged and not yet committed. */
    private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();
    private long lastCommitNanos = System.nanoTime() - COMMIT_EVERY.toNanos();

    PlainLeases(EventSender events, Consumer<byte[], byte[]> consumer, String owner) {
        this(events, consumer, owner, DEFERRAL);
    }

    /** {@code deferral} zero sends each {@code LEASED} at once. */
    PlainLeases(EventSender events, Consumer<byte[], byte[]> consumer, String owner, Duration deferral) {
        this.events = events;
        this.consumer = consumer;
        this.owner = owner;
        this.timer = deferral.isZero() ? null : new LeaseDeferrals(deferral, owner);
    }

    @Override
    public void lease(Execution e, EventSender events) {
        DeferredLease lease = new DeferredLease();
        e.deferLease(lease);
        sent.add(lease.proven());
        if (timer == null) {
            events.deferredLease(e);
            return;
        }
        timer.defer(() -> events.deferredLease(e));
    }

    /**
     * A task read again while its run goes on here is not run twice, but its offset is not free either:
     * it was read again because the record that leased the run failed or was overdue (its batch rewound),
     * or its partition came back after a hand-over. Committed at once, a crash would then leave its site
     * pending with no deadline armed and the task never read again. So the batch waits for the run's
     * lease; a lease whose send failed is sent again (to a site that holds it already, it is a heartbeat).
     */
    @Override
    public void rejoin(Execution running, EventSender events) {
        DeferredLease lease = running.deferredLease();
        if (lease == null) {
            return; // not leased by this loop
        }
        if (lease.proven().isCompletedExceptionally()) {
            send(events.leaseRecord(running));
        } else {
            sent.add(lease.proven());
        }
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

    /** Queues the batch's offsets behind its leases' acknowledgements, and commits whatever is acknowledged already. */
    @Override
    public void commit(Map<TopicPartition, OffsetAndMetadata> consumed, Map<TopicPartition, Long> firstRead, ConsumerGroupMetadata group) {
        unacknowledged.addLast(new Batch(List.copyOf(sent), Map.copyOf(consumed), Map.copyOf(firstRead), System.nanoTime()));
        sent.clear();
        commitAcknowledged();
    }

    /**
     * Commits, without waiting, the offsets of the batches acknowledged so far in order; rewinds to the
     * first batch whose lease failed or is overdue (a lost commit only makes a task run twice).
     */
    @Override
    public void commitAcknowledged() {
        long now = System.nanoTime();
        acknowledged.putAll(acknowledgedPrefix(now));
        // At most one commit per COMMIT_EVERY: one per poll was a tenth of the loop's thread and a write to
        // __consumer_offsets per batch; a crash runs again at most that much more, and the token decides.
        if (!acknowledged.isEmpty() && now - lastCommitNanos >= COMMIT_EVERY.toNanos()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(acknowledged);
            acknowledged.clear();
            lastCommitNanos = now;
            consumer.commitAsync(offsets, (committed, e) -> {
                if (e != null) {
                    log.warn("{}: committing leased offsets failed ({}); their tasks may run again elsewhere, and the token decides", owner,
                            e.toString());
                }
            });
        }
    }

    /**
     * Before the group takes partitions away (or the loop closes): waits up to {@code patience} for the
     * batches' leases, commits what was acknowledged, and forgets the batches' offsets of those
     * partitions (their unacknowledged tasks are read again by the next owner).
     */
    @Override
    public void settle(Collection<TopicPartition> partitions, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        for (Batch b : unacknowledged) {
            for (Future<?> f : b.settling()) {
                try {
                    f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (ExecutionException | TimeoutException e) {
                    // left unacknowledged: acknowledgedPrefix stops there
                }
            }
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(acknowledged);
        offsets.putAll(acknowledgedPrefix(System.nanoTime()));
        acknowledged.clear();
        if (!offsets.isEmpty()) {
            try {
                consumer.commitSync(offsets);
            } catch (KafkaException e) {
                log.warn("{}: committing leased offsets on handing partitions over failed ({}); their tasks may run again elsewhere",
                        owner, e.toString());
            }
        }
        List<Batch> kept = new ArrayList<>();
        for (Batch b : unacknowledged) {
            Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>(b.consumed());
            Map<TopicPartition, Long> firstRead = new HashMap<>(b.firstRead());
            consumed.keySet().removeAll(partitions);
            firstRead.keySet().removeAll(partitions);
            kept.add(new Batch(b.settling(), consumed, firstRead, b.queuedNanos()));
        }
        unacknowledged.clear();
        unacknowledged.addAll(kept);
    }

    /** The offsets of the leading acknowledged batches, dequeued; on a failed or overdue batch, a rewind to it. */
    private Map<TopicPartition, OffsetAndMetadata> acknowledgedPrefix(long now) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        while (!unacknowledged.isEmpty()) {
            Batch first = unacknowledged.peekFirst();
            boolean overdue = now - first.queuedNanos() > ACK_TIMEOUT.toNanos();
            if (!first.acknowledged() && !overdue) {
                break;
            }
            Throwable failure = overdue && !first.acknowledged() ? new TimeoutException("not acknowledged in " + ACK_TIMEOUT)
                    : first.failure();
            if (failure != null) {
                rewindToUnacknowledged(failure);
                break;
            }
            offsets.putAll(first.consumed());
            unacknowledged.removeFirst();
        }
        return offsets;
    }

    /** Every partition back to the first record of the first unacknowledged batch that read it. */
    private void rewindToUnacknowledged(Throwable failure) {
        Map<TopicPartition, Long> from = new HashMap<>();
        for (Batch b : unacknowledged) {
            b.firstRead().forEach((tp, offset) -> from.merge(tp, offset, Math::min));
        }
        unacknowledged.clear();
        from.keySet().retainAll(consumer.assignment());
        from.forEach(consumer::seek);
        log.warn("{}: a lease was not acknowledged ({}); reading its batch and every later one again from {}", owner, failure.toString(),
                from);
    }

    @Override
    public void recover(RuntimeException failure) {
        sent.clear();
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.close();
        }
    }
}
