package dev.baton.streams.status;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.streams.names.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * One streams app instance's status as JSON: its live sites by state and queue (its own tasks only;
 * {@link StatusHandler} adds up every instance's), unserved queues, registered workers (a global
 * store: the same on every instance) and consumer lag per queue.
 */
public final class StatusReport implements AutoCloseable {

    private final ObjectMapper json = new ObjectMapper();
    private final KafkaStreams streams;
    private final EventSerde<SiteState> sites;
    private final EventSerde<WorkerStatus> workers;
    private final Admin admin;
    private final QueueLag lag;
    private final Supplier<Set<String>> unserved;

    public StatusReport(KafkaStreams streams, EventSerde<SiteState> sites, EventSerde<WorkerStatus> workers, Admin admin,
                        Supplier<Set<String>> unserved) {
        this.streams = streams;
        this.sites = sites;
        this.workers = workers;
        this.admin = admin;
        this.lag = new QueueLag(admin);
        this.unserved = unserved;
    }

    /** The JSON document of this instance. */
    public ObjectNode snapshot() {
        ObjectNode root = json.createObjectNode();
        root.put("state", streams.state().toString());
        Map<String, Long> byState = new TreeMap<>();
        Map<String, Map<String, Long>> byQueue = new TreeMap<>();
        if (streams.state() == KafkaStreams.State.RUNNING) {
            try (KeyValueIterator<Bytes, byte[]> it = new LocalSites(streams, sites).store().all()) {
                while (it.hasNext()) {
                    SiteState s = sites.decode(TopologyNames.SITES_SUBJECT_TOPIC, it.next().value);
                    byState.merge(s.getState().toString(), 1L, Long::sum);
                    byQueue.computeIfAbsent(s.getQueue(), q -> new TreeMap<>()).merge(s.getState().toString(), 1L, Long::sum);
                }
            }
        }
        root.set("sitesByState", json.valueToTree(byState));
        root.set("sitesByQueue", json.valueToTree(byQueue));
        root.set("unservedQueues", json.valueToTree(unserved.get()));
        root.set("workers", workersNode());
        root.set("lagByQueue", json.valueToTree(lag.read()));
        return root;
    }

    private ArrayNode workersNode() {
        ArrayNode out = json.createArrayNode();
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return out;
        }
        ReadOnlyKeyValueStore<Bytes, byte[]> store = streams.store(
                StoreQueryParameters.fromNameAndType(TopologyNames.WORKERS_STORE, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> e = it.next();
                WorkerStatus w = workers.decode(BatonTopics.WORKERS, e.value);
                out.addObject().put("workerId", w.getWorkerId()).put("capacity", w.getCapacity()).put("inFlight", w.getInFlight())
                        .put("draining", w.getDraining()).put("lastSeenMillis", w.getLastSeenMillis())
                        .set("queues", json.valueToTree(w.getQueues()));
            }
        }
        return out;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
