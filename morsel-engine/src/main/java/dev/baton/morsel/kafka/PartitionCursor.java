package dev.baton.morsel.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * One scanning worker's consumer and where it stands. A morsel that starts where the worker's
 * previous one ended, on the same partition, continues the stream: the records the last poll
 * fetched beyond that morsel's end are handed out first and nothing is sought or fetched again.
 * Any other morsel (another partition, or one stolen from a peer) assigns and seeks.
 *
 * <p>Reads are {@code read_committed}: aborted records and transaction markers take offsets but
 * yield no records, so a range may hand out fewer records than it has offsets.
 *
 * <p>Not thread-safe: owned by one worker at a time.
 */
final class PartitionCursor implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final long STALL_NANOS = Duration.ofSeconds(30).toNanos();

    private final KafkaConsumer<byte[], byte[]> consumer;
    /** Partitions assigned and positioned ahead of time ({@link #prepare}), paused, keyed to the offset they stand at. */
    private final Map<TopicPartition, Long> readyAt = new HashMap<>();
    private TopicPartition assigned;
    /** The next offset to hand out on {@link #assigned}. */
    private long next = -1;
    private List<ConsumerRecord<byte[], byte[]>> pending = List.of();
    private int pendingIndex;

    PartitionCursor(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    KafkaConsumer<byte[], byte[]> consumer() {
        return consumer;
    }

    /**
     * Hands every committed record of {@code range} to {@code visitor} in offset order.
     *
     * @param cancelled checked after every poll
     * @return the records handed out
     * @throws CancellationException if {@code cancelled} turned true; the cursor then seeks on its next range
     * @throws IllegalStateException if no record arrives for 30 s before the range's end
     */
    long scan(OffsetRange range, Consumer<ConsumerRecord<byte[], byte[]>> visitor, BooleanSupplier cancelled) {
        position(range);
        long seen = 0;
        long lastProgress = System.nanoTime();
        while (next < range.to()) {
            if (pendingIndex >= pending.size()) {
                if (cancelled.getAsBoolean()) {
                    throw new CancellationException("scan of " + range + " cancelled at offset " + next);
                }
                pending = consumer.poll(POLL).records(assigned);
                pendingIndex = 0;
                if (!pending.isEmpty()) {
                    lastProgress = System.nanoTime();
                } else if (consumer.position(assigned) >= range.to()) {
                    next = range.to(); // the rest of the range was transaction markers or aborted records
                } else if (System.nanoTime() - lastProgress > STALL_NANOS) {
                    throw new IllegalStateException("no progress reading " + range + " for 30 s (at offset " + consumer.position(assigned)
                            + "); is an open transaction holding the last stable offset?");
                }
                continue;
            }
            ConsumerRecord<byte[], byte[]> r = pending.get(pendingIndex);
            if (r.offset() >= range.to()) {
                next = range.to(); // left pending for the morsel that starts here
                break;
            }
            pendingIndex++;
            next = r.offset() + 1;
            visitor.accept(r);
            seen++;
        }
        return seen;
    }

    /**
     * The records of the first fetch at {@code range}'s start, left pending for its scan: what a
     * morsel size is tuned on, at the cost of no extra fetch.
     */
    List<ConsumerRecord<byte[], byte[]>> peek(OffsetRange range) {
        position(range);
        long deadline = System.nanoTime() + STALL_NANOS;
        while (pendingIndex >= pending.size() && consumer.position(assigned) < range.to() && System.nanoTime() < deadline) {
            pending = consumer.poll(POLL).records(assigned);
            pendingIndex = 0;
        }
        return pending.subList(pendingIndex, pending.size());
    }

    /**
     * Assigns every partition of the ranges this worker was dealt, positioned at each one's first
     * range and paused: one round of offset validation for all of them, where assigning them one by
     * one costs a round trip each. A partition is then resumed when its first range is scanned.
     */
    void prepare(List<OffsetRange> mine) {
        readyAt.clear();
        assigned = null;
        pending = List.of();
        pendingIndex = 0;
        Map<TopicPartition, Long> first = new LinkedHashMap<>();
        for (OffsetRange r : mine) {
            first.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.from());
        }
        consumer.assign(first.keySet());
        first.forEach(consumer::seek);
        consumer.pause(first.keySet());
        readyAt.putAll(first);
    }

    private void position(OffsetRange range) {
        TopicPartition tp = new TopicPartition(range.topic(), range.partition());
        if (tp.equals(assigned) && next == range.from()) {
            return;
        }
        if (assigned != null) {
            consumer.pause(List.of(assigned)); // its position is past what it handed out: it seeks if scanned again
        }
        Long ready = readyAt.remove(tp);
        if (ready == null || ready != range.from()) {
            if (!consumer.assignment().contains(tp)) {
                Set<TopicPartition> more = new HashSet<>(consumer.assignment());
                more.add(tp);
                consumer.assign(more);
                consumer.pause(more);
            }
            consumer.seek(tp, range.from());
        }
        consumer.resume(List.of(tp));
        assigned = tp;
        next = range.from();
        pending = List.of();
        pendingIndex = 0;
    }

    @Override
    public void close() {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
