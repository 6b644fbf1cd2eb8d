package dev.baton.streams.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.names.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The sites this instance's active tasks hold, read through Kafka Streams' interactive queries.
 * Every read may throw {@link InvalidStateStoreException} while the instance rebalances.
 */
final class LocalSites {

    private final KafkaStreams streams;
    private final EventSerde<SiteState> serde;

    LocalSites(KafkaStreams streams, EventSerde<SiteState> serde) {
        this.streams = streams;
        this.serde = serde;
    }

    Optional<SiteState> get(SiteKey site) {
        byte[] row = store().get(Bytes.wrap(site.toBytes()));
        return row == null ? Optional.empty() : Optional.of(serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, row));
    }

    /**
     * Rows of this instance's sites in the given state and queue (null = any), at most {@code limit}.
     * A row that does not decode is skipped: listing is for people, and the describe of that site says why.
     */
    List<ObjectNode> list(String state, String queue, int limit) {
        List<ObjectNode> out = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = store().all()) {
            while (it.hasNext() && out.size() < limit) {
                KeyValue<Bytes, byte[]> e = it.next();
                SiteState s = serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, e.value);
                if ((state == null || s.getState().toString().equalsIgnoreCase(state)) && (queue == null || queue.equals(s.getQueue()))) {
                    out.add(SiteView.row(SiteKey.fromBytes(e.key.get()), s));
                }
            }
        }
        return out;
    }

    ReadOnlyKeyValueStore<Bytes, byte[]> store() {
        return streams.store(StoreQueryParameters.fromNameAndType(TopologyNames.SITES_STORE, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
    }
}
