package dev.baton.streams.processor;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The census from the global {@code workers} store (every instance holds all of {@code baton.workers}).
 * A worker counts as live for a queue when it serves the queue, is not draining, and refreshed its
 * registration within {@code staleAfterMs}; a clean exit tombstones it at once. For a node of the
 * queue it must also carry the node's label.
 *
 * <p>Every dispatch asks, so a count is kept per queue (and node) until a registration changes or
 * {@link #RECOUNT_AFTER_MS} pass (workers go stale with time alone): scanning and decoding every
 * worker's row per dispatch would make dispatch cost grow with the fleet.
 */
final class StoreWorkerCensus implements WorkerCensus {

    private final ReadOnlyKeyValueStore<Bytes, byte[]> workers;
    private final EventSerde<WorkerStatus> serde;
    private final LongSupplier now;
    private final long staleAfterMs;
    private final CensusChanges changes;
    private final Map<String, Count> counts = new HashMap<>();

    static final long RECOUNT_AFTER_MS = 100;

    private record Count(int live, long version, long atMillis) {
    }

    StoreWorkerCensus(ReadOnlyKeyValueStore<Bytes, byte[]> workers, EventSerde<WorkerStatus> serde, LongSupplier now, long staleAfterMs,
                      CensusChanges changes) {
        this.workers = workers;
        this.serde = serde;
        this.now = now;
        this.staleAfterMs = staleAfterMs;
        this.changes = changes;
    }

    @Override
    public int liveWorkers(String queue, String node) {
        long at = now.getAsLong();
        long version = changes.version();
        String key = node == null ? queue : queue + '/' + node;
        Count c = counts.get(key);
        if (c == null || c.version() != version || at < c.atMillis() || at - c.atMillis() >= RECOUNT_AFTER_MS) {
            c = new Count(count(queue, node, at), version, at);
            counts.put(key, c);
        }
        return c.live();
    }

    private int count(String queue, String node, long at) {
        long horizon = at - staleAfterMs;
        int live = 0;
        try (KeyValueIterator<Bytes, byte[]> it = workers.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> entry = it.next();
                try {
                    WorkerStatus s = serde.decode(BatonTopics.WORKERS, entry.value);
                    if (s != null && !s.getDraining() && s.getLastSeenMillis() >= horizon && s.getQueues().contains(queue)
                            && (node == null || s.getNodeLabels().contains(node))) {
                        live++;
                    }
                } catch (UndecodableRecordException e) {
                    // a corrupt registration is nobody; the census processor already refused to store new ones
                }
            }
        }
        return live;
    }
}
