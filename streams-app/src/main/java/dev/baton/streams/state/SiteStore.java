package dev.baton.streams.state;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.streams.topology.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sites} store: site → {@link SiteState}, with the rows this task wrote last kept in
 * memory. A site's row is read back milliseconds after it is written (dispatched, then leased, then
 * completed), and two of every activity's three reads came from RocksDB's memtable through JNI.
 * Every write goes through this class (one instance per task, created in the processor's
 * {@code init}, so a revived task starts empty), so the copy never disagrees with the store.
 */
public final class SiteStore {

    private static final Logger log = LoggerFactory.getLogger(SiteStore.class);
    /** Rows kept per task: more than a task writes while its sites are dispatched, leased and done. */
    static final int RECENT_ROWS = 8192;

    private final KeyValueStore<Bytes, byte[]> store;
    private final EventSerde<SiteState> serde;
    private final Map<Bytes, byte[]> recent = new LinkedHashMap<>(RECENT_ROWS * 4 / 3 + 1) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Bytes, byte[]> eldest) {
            return size() > RECENT_ROWS;
        }
    };

    public SiteStore(KeyValueStore<Bytes, byte[]> store, EventSerde<SiteState> serde) {
        this.store = store;
        this.serde = serde;
    }

    public Optional<SiteState> get(SiteKey site) {
        Bytes key = Bytes.wrap(site.toBytes());
        byte[] bytes = recent.get(key);
        if (bytes == null) {
            bytes = store.get(key);
        }
        return bytes == null ? Optional.empty() : Optional.of(serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes));
    }

    public void put(SiteKey site, SiteState state) {
        Bytes key = Bytes.wrap(site.toBytes());
        byte[] bytes = serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, state);
        store.put(key, bytes);
        recent.put(key, bytes);
    }

    public void delete(SiteKey site) {
        Bytes key = Bytes.wrap(site.toBytes());
        store.delete(key);
        recent.remove(key);
    }

    /** Visits every row, in key order. A row that cannot be decoded is logged and skipped, not fatal. */
    public void forEach(BiConsumer<SiteKey, SiteState> visitor) {
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> row = it.next();
                SiteState state;
                try {
                    state = serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, row.value);
                } catch (UndecodableRecordException e) {
                    log.error("sites row {} cannot be decoded; skipped: {}", Bytes.wrap(row.key.get()), e.getMessage());
                    continue;
                }
                visitor.accept(SiteKey.fromBytes(row.key.get()), state);
            }
        }
    }
}
