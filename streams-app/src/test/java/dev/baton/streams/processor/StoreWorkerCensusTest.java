package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

class StoreWorkerCensusTest {

    private static final long STALE_AFTER_MS = 10_000;
    private static final long T0 = 1_000_000;

    private final EventSerde<WorkerStatus> serde = EventSerde.of(WorkerStatus.class, SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()));
    private final CountingStore store = new CountingStore();
    private final CensusChanges changes = new CensusChanges();
    private final AtomicLong now = new AtomicLong(T0);
    private final StoreWorkerCensus census = new StoreWorkerCensus(store, serde, now::get, STALE_AFTER_MS, changes);

    @Test
    void shouldScanTheStoreOnceForManyDispatchesAndAgainAsSoonAsARegistrationChanges() {
        register("w-1", T0);
        register("w-2", T0);

        for (int i = 0; i < 1_000; i++) {
            assertThat(census.liveWorkers("q")).isEqualTo(2);
        }
        assertThat(store.scans).as("scans for 1,000 questions at one instant").isEqualTo(1);

        register("w-3", T0);
        assertThat(census.liveWorkers("q")).as("a new registration counts at once").isEqualTo(3);
        store.rows.remove(key("w-1"));
        changes.changed();
        assertThat(census.liveWorkers("q")).as("a tombstone counts at once").isEqualTo(2);
    }

    @Test
    void shouldRecountAsTimePassesSoASilentWorkerGoesStale() {
        register("w-1", T0);
        assertThat(census.liveWorkers("q")).isEqualTo(1);

        now.set(T0 + STALE_AFTER_MS + StoreWorkerCensus.RECOUNT_AFTER_MS);

        assertThat(census.liveWorkers("q")).isZero();
    }

    private void register(String workerId, long lastSeen) {
        WorkerStatus s = WorkerStatus.newBuilder().setWorkerId(workerId).setQueues(List.of("q")).setNodeLabels(List.of()).setCapacity(4)
                .setInFlight(0).setStartedAtMillis(lastSeen).setLastSeenMillis(lastSeen).build();
        store.rows.put(key(workerId), serde.encode(BatonTopics.WORKERS, s));
        changes.changed();
    }

    private static Bytes key(String workerId) {
        return Bytes.wrap(workerId.getBytes(StandardCharsets.UTF_8));
    }

    /** The global store's read side, counting full scans. */
    private static final class CountingStore implements ReadOnlyKeyValueStore<Bytes, byte[]> {
        final NavigableMap<Bytes, byte[]> rows = new TreeMap<>();
        int scans;

        @Override
        public byte[] get(Bytes key) {
            return rows.get(key);
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
            return iterator(rows.subMap(from, true, to, true));
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> all() {
            scans++;
            return iterator(rows);
        }

        @Override
        public long approximateNumEntries() {
            return rows.size();
        }

        private static KeyValueIterator<Bytes, byte[]> iterator(NavigableMap<Bytes, byte[]> view) {
            Iterator<Map.Entry<Bytes, byte[]>> it = new TreeMap<>(view).entrySet().iterator();
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public KeyValue<Bytes, byte[]> next() {
                    Map.Entry<Bytes, byte[]> e = it.next();
                    return KeyValue.pair(e.getKey(), e.getValue());
                }

                @Override
                public void close() {
                }

                @Override
                public Bytes peekNextKey() {
                    throw new UnsupportedOperationException("not needed by the census");
                }
            };
        }
    }
}
