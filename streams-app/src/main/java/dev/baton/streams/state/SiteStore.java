package dev.baton.streams.state;

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

/** The {@code sites} store: site → {@link SiteState}. */
public final class SiteStore {

    private static final Logger log = LoggerFactory.getLogger(SiteStore.class);

    private final KeyValueStore<Bytes, byte[]> store;
    private final EventSerde<SiteState> serde;

    public SiteStore(KeyValueStore<Bytes, byte[]> store, EventSerde<SiteState> serde) {
        this.store = store;
        this.serde = serde;
    }

    public Optional<SiteState> get(SiteKey site) {
        byte[] bytes = store.get(Bytes.wrap(site.toBytes()));
        return bytes == null ? Optional.empty() : Optional.of(serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes));
    }

    public void put(SiteKey site, SiteState state) {
        store.put(Bytes.wrap(site.toBytes()), serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, state));
    }

    public void delete(SiteKey site) {
        store.delete(Bytes.wrap(site.toBytes()));
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
