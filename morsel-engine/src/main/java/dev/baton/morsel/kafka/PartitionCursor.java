package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scanning worker's consumer and where it stands. A morsel that starts where the worker's
 * previous one ended, on the same partition, continues the stream: the records the last poll
 * fetched beyond that morsel's end are handed out first and nothing is sought or fetched again.
 * A partition the worker leaves keeps what it fetched beyond what it handed out, so a later morsel
 * that starts where it stopped goes on without a seek too; any other morsel (one stolen from a
 * peer, say) assigns and seeks.
 *
 * <p>A worker's partitions are assigned together ({@link #prepare}), but only the one being scanned
 * and the next in the worker's order fetch; records that arrive for the next one are kept for its
 * turn, and when its turn comes the one after it starts fetching.
 *
 * <p>Reads are {@code read_committed}: aborted records and transaction markers take offsets but
 * yield no records, so a range may hand out fewer records than it has offsets.
 *
 * <p>Not thread-safe: owned by one worker at a time.
 */
final class PartitionCursor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionCursor.class);

    private static final Duration POLL = Duration.ofMillis(200);
    /**
     * How long a range may yield nothing before its scan fails. Longer than a fetch the client gives
     * up on and sends again (request.timeout.ms, 30 s by default): a limit of 30 s failed a scan in
     * CI once, mid-range, with nothing else failing, which one fetch lost or answered late explains.
     * Long enough too that a crashed producer's open transaction (aborted after its
     * transaction.timeout.ms, 60 s by default) delays the scan rather than failing it.
     */
    private static final Duration STALL = Duration.ofSeconds(90);
    /**
     * Records kept per partition waiting its turn: two polls' worth, enough that a partition's turn
     * starts without a wait. Every kept record is live at each young collection until it is read,
     * so a deeper stash is copied again and again by the collector.
     */
    static final int STASH_RECORDS = 2 * ScanConsumers.MAX_POLL_RECORDS;
    /** Partitions fetching at once: the one being scanned and the next. */
    static final int FETCHING = 2;

    private final KafkaConsumer<ByteBuffer, ByteBuffer> consumer;
    /** Reads {@link #scanViews}'s ranges without a consumer record per record; null once it could not serve, or if not wanted. */
    private FetchReader fetchReader;
    /** The prepared partitions in the order this worker scans them: the one after the current one fetches ahead. */
    private final List<TopicPartition> order = new ArrayList<>();
    /** Partitions assigned and positioned ahead of time ({@link #prepare}), paused, keyed to the offset they stand at. */
    private final Map<TopicPartition, Long> readyAt = new HashMap<>();
    /** What fetches brought for ready partitions while another was scanned, in offset order. */
    private final Map<TopicPartition, List<ConsumerRecord<ByteBuffer, ByteBuffer>>> stash = new HashMap<>();
    private TopicPartition assigned;
    /** The next offset to hand out on {@link #assigned}. */
    private long next = -1;
    private List<ConsumerRecord<ByteBuffer, ByteBuffer>> pending = List.of();
    private int pendingIndex;

    PartitionCursor(KafkaConsumer<ByteBuffer, ByteBuffer> consumer, FetchReader fetchReader) {
        this.consumer = consumer;
        this.fetchReader = fetchReader;
    }

    /** The time a range may yield nothing before its scan fails, for the fetch reader too. */
    static Duration stall() {
        return STALL;
    }

    KafkaConsumer<ByteBuffer, ByteBuffer> consumer() {
        return consumer;
    }

    /**
     * Hands every committed record of {@code range} to {@code visitor} in offset order.
     *
     * @param cancelled checked after every poll
     * @return the records handed out
     * @throws CancellationException if {@code cancelled} turned true; the cursor stands where it stopped
     * @throws IllegalStateException if no record arrives for {@link #STALL} before the range's end
     */
    long scan(OffsetRange range, Consumer<ConsumerRecord<ByteBuffer, ByteBuffer>> visitor, BooleanSupplier cancelled) {
        position(range);
        long seen = 0;
        long lastProgress = System.nanoTime();
        while (next < range.to()) {
            if (pendingIndex >= pending.size()) {
                if (cancelled.getAsBoolean()) {
                    throw new CancellationException("scan of " + range + " cancelled at offset " + next);
                }
                poll();
                if (!pending.isEmpty()) {
                    lastProgress = System.nanoTime();
                } else if (consumer.position(assigned) >= range.to()) {
                    next = range.to(); // the rest of the range was transaction markers or aborted records
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    throw stalled(range);
                }
                continue;
            }
            ConsumerRecord<ByteBuffer, ByteBuffer> r = pending.get(pendingIndex);
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
     * As {@link #scan}, handing out views: read by the {@link FetchReader} (the records of the fetched batches in
     * place), or by the consumer where the fetch reader cannot serve, from the offset where it stopped on.
     */
    long scanViews(OffsetRange range, Consumer<RecordView> visitor, BooleanSupplier cancelled) {
        long[] seen = new long[1];
        if (fetchReader != null) {
            try {
                return fetchReader.scan(range, r -> {
                    seen[0]++;
                    visitor.accept(r);
                }, cancelled);
            } catch (FetchReader.UnservedException e) {
                LOG.warn("scan of {}: reading with the consumer from offset {} on, the fetch reader cannot serve: {}", range, e.resumeAt(), e.getMessage());
                fetchReader.close();
                fetchReader = null;
                if (e.resumeAt() >= range.to()) {
                    return seen[0];
                }
                range = new OffsetRange(range.topic(), range.partition(), Math.max(range.from(), e.resumeAt()), range.to());
            }
        }
        RecordView.ConsumerRecordView view = new RecordView.ConsumerRecordView();
        return seen[0] + scan(range, r -> visitor.accept(view.of(r)), cancelled);
    }

    /**
     * Names why a range yields nothing: its read_committed end (the last stable offset) at or before the
     * position means an open transaction or a range past the log's end; beyond it, the fetches failed.
     */
    private IllegalStateException stalled(OffsetRange range) {
        long at = consumer.position(assigned);
        Long stable = consumer.endOffsets(List.of(assigned), Duration.ofSeconds(10)).get(assigned);
        String why = stable != null && stable <= at
                ? "the partition's last stable offset is " + stable + ": an open transaction holds it, or the range ends past the log's end"
                : "the partition's last stable offset is " + stable + ", beyond it: fetches brought nothing; check the broker's health";
        return new IllegalStateException("no progress reading " + range + " for " + STALL.toSeconds() + " s (at offset " + at + "); " + why);
    }

    /**
     * The records of the first fetch at {@code range}'s start, left pending for its scan: what a
     * morsel size is tuned on, at the cost of no extra fetch. They stay with the cursor when it
     * moves on, and a later {@link #prepare} keeps them if this worker's first range there starts
     * at {@code range}'s start.
     */
    List<ConsumerRecord<ByteBuffer, ByteBuffer>> peek(OffsetRange range) {
        position(range);
        long deadline = System.nanoTime() + STALL.toNanos();
        while (pendingIndex >= pending.size() && consumer.position(assigned) < range.to() && System.nanoTime() < deadline) {
            poll();
        }
        return pending.subList(pendingIndex, pending.size());
    }

    /**
     * Assigns every partition of the ranges this worker was dealt, each positioned at its first
     * range: one round of offset validation for all of them, where assigning them one by one costs a
     * round trip each. Only the first of them (in the worker's order) and the one after it fetch:
     * what arrives for the one ahead is kept for it (up to {@value #STASH_RECORDS} records, then it
     * pauses), so its first records are already here when its turn comes. The rest wait paused:
     * fetched records are live at every young collection until read, and all of a worker's
     * partitions fetching at once kept many of them live, which the collector copied again and again
     * (docs/decisions.md, "A cold replay, third pass").
     */
    void prepare(List<OffsetRange> mine) {
        if (fetchReader != null) {
            fetchReader.forget();
        }
        leave();
        Map<TopicPartition, Long> first = new LinkedHashMap<>();
        for (OffsetRange r : mine) {
            first.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.from());
        }
        // A partition that already stands where this worker starts it (a peek's first fetch) keeps its records and position.
        Map<TopicPartition, Long> standing = new HashMap<>(readyAt);
        readyAt.clear();
        stash.keySet().retainAll(first.keySet());
        consumer.assign(first.keySet());
        first.forEach((tp, from) -> {
            if (!from.equals(standing.get(tp))) {
                consumer.seek(tp, from);
                stash.remove(tp);
            }
        });
        order.clear();
        order.addAll(first.keySet());
        consumer.pause(first.keySet());
        consumer.resume(order.subList(0, Math.min(FETCHING, order.size())));
        readyAt.putAll(first);
    }

    /** Starts fetching the partition after {@code tp} in this worker's order, if it is prepared and not yet read. */
    private void fetchAhead(TopicPartition tp) {
        int i = order.indexOf(tp);
        if (i >= 0 && i + 1 < order.size()) {
            TopicPartition next = order.get(i + 1);
            List<ConsumerRecord<ByteBuffer, ByteBuffer>> kept = stash.get(next);
            if (readyAt.containsKey(next) && (kept == null || kept.size() < STASH_RECORDS)) {
                consumer.resume(List.of(next));
            }
        }
    }

    /**
     * Stops reading the partition being read: it pauses, and what its last poll fetched beyond what
     * was handed out waits in the stash, so a later range that starts where this one stopped goes
     * on without a seek or a second fetch of those records.
     */
    private void leave() {
        if (assigned != null) {
            consumer.pause(List.of(assigned));
            stash.put(assigned, new ArrayList<>(pending.subList(pendingIndex, pending.size())));
            readyAt.put(assigned, next);
        }
        assigned = null;
        pending = List.of();
        pendingIndex = 0;
    }

    private void poll() {
        ConsumerRecords<ByteBuffer, ByteBuffer> polled = consumer.poll(POLL);
        pending = List.of();
        pendingIndex = 0;
        for (TopicPartition p : polled.partitions()) {
            if (p.equals(assigned)) {
                pending = polled.records(p);
            } else if (readyAt.containsKey(p)) {
                List<ConsumerRecord<ByteBuffer, ByteBuffer>> kept = stash.computeIfAbsent(p, k -> new ArrayList<>());
                kept.addAll(polled.records(p));
                if (kept.size() >= STASH_RECORDS) {
                    consumer.pause(List.of(p));
                }
            }
            // else: a partition this worker left (its last fetch was in flight); it seeks if scanned again
        }
    }

    private void position(OffsetRange range) {
        TopicPartition tp = new TopicPartition(range.topic(), range.partition());
        if (tp.equals(assigned) && next == range.from()) {
            return;
        }
        leave();
        Long ready = readyAt.remove(tp);
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> kept = stash.remove(tp);
        if (ready == null || ready != range.from()) {
            if (!consumer.assignment().contains(tp)) {
                Set<TopicPartition> more = new HashSet<>(consumer.assignment());
                more.add(tp);
                consumer.assign(more); // the partitions already assigned keep their positions and pauses
            }
            consumer.seek(tp, range.from());
            kept = null;
        }
        consumer.resume(List.of(tp));
        fetchAhead(tp);
        assigned = tp;
        next = range.from();
        pending = kept == null ? List.of() : kept;
        pendingIndex = 0;
    }

    /**
     * Drops everything fetched and every position kept: the next range seeks and fetches afresh. For a cursor kept from
     * one job to the next (an engine node's): what it fetched may be of a log that has changed since, a topic deleted and
     * created again under its name whose offsets now hold other records, and a range starting where the last one stopped
     * would be handed those. Unassigning makes the consumer drop what it buffered for the partitions too.
     */
    void forget() {
        if (fetchReader != null) {
            fetchReader.forget();
        }
        assigned = null;
        next = -1;
        pending = List.of();
        pendingIndex = 0;
        stash.clear();
        readyAt.clear();
        order.clear();
        consumer.assign(List.of());
    }

    @Override
    public void close() {
        if (fetchReader != null) {
            fetchReader.close();
        }
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
