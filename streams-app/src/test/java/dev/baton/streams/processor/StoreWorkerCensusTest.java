package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.state.RocksDbStores;
import dev.baton.streams.topology.BatonTopology;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            assertThat(census.liveWorkers("q", null)).isEqualTo(2);
        }
        assertThat(store.scans).as("scans for 1,000 questions at one instant").isEqualTo(1);

        register("w-3", T0);
        assertThat(census.liveWorkers("q", null)).as("a new registration counts at once").isEqualTo(3);
        store.rows.remove(key("w-1"));
        changes.changed();
        assertThat(census.liveWorkers("q", null)).as("a tombstone counts at once").isEqualTo(2);
    }

    @Test
    void shouldRecountAsTimePassesSoASilentWorkerGoesStale() {
        register("w-1", T0);
        assertThat(census.liveWorkers("q", null)).isEqualTo(1);

        now.set(T0 + STALE_AFTER_MS + StoreWorkerCensus.RECOUNT_AFTER_MS);

        assertThat(census.liveWorkers("q", null)).isZero();
    }

    /**
     * The global thread writes the store while stream threads count; a tombstone landing mid-scan
     * once made the count throw and cost the dispatch being decided. Counted against the store the
     * topology really builds, while another thread registers and tombstones workers.
     */
    @Test
    void shouldCountWhileAnotherThreadRegistersAndTombstonesWorkers(@TempDir Path stateDir) throws Exception {
        KeyValueStore<Bytes, byte[]> global = RocksDbStores.open(BatonTopology.workersStore().withCachingDisabled(), stateDir);
        try {
            StoreWorkerCensus shared = new StoreWorkerCensus(global, serde, now::get, STALE_AFTER_MS, changes);
            global.put(key("steady-1"), status("steady-1", T0));
            global.put(key("steady-2"), status("steady-2", T0));
            AtomicBoolean writing = new AtomicBoolean(true);
            // The row that comes and goes sorts last: a scan that sees it in hasNext() and finds it gone in next() is the race.
            Thread globalThread = new Thread(() -> {
                for (long i = 0; writing.get(); i++) {
                    if (i % 2 == 0) {
                        global.put(key("zz-flapping"), status("zz-flapping", T0));
                    } else {
                        global.delete(key("zz-flapping"));
                    }
                    changes.changed();
                }
            });
            globalThread.start();
            try {
                for (int scan = 0; scan < 100_000; scan++) {
                    assertThat(shared.liveWorkers("q", null)).isBetween(2, 3);
                }
            } finally {
                writing.set(false);
                globalThread.join();
            }
        } finally {
            global.close();
        }
    }

    private void register(String workerId, long lastSeen) {
        store.rows.put(key(workerId), status(workerId, lastSeen));
        changes.changed();
    }

    private byte[] status(String workerId, long lastSeen) {
        return serde.encode(BatonTopics.WORKERS, WorkerStatus.newBuilder().setWorkerId(workerId).setQueues(List.of("q"))
                .setNodeLabels(List.of()).setCapacity(4).setInFlight(0).setStartedAtMillis(lastSeen).setLastSeenMillis(lastSeen).build());
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
