package dev.baton.streams.state;

import java.util.Optional;

import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.topology.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/** The {@code sites} store: site → {@link SiteState}. */
public final class SiteStore {

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
}
