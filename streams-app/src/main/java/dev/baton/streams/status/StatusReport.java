package dev.baton.streams.status;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.streams.topology.TopologyNames;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The streams app's status as JSON: live sites by state and queue (this instance's tasks), unserved
 * queues, registered workers and consumer lag per queue. Served by {@link StatusServer}.
 */
public final class StatusReport implements AutoCloseable {

    private final ObjectMapper json = new ObjectMapper();
    private final KafkaStreams streams;
    private final EventSerde<SiteState> sites;
    private final EventSerde<WorkerStatus> workers;
    private final Admin admin;
    private final Supplier<Set<String>> unserved;

    public StatusReport(KafkaStreams streams, EventSerde<SiteState> sites, EventSerde<WorkerStatus> workers, Admin admin,
                        Supplier<Set<String>> unserved) {
        this.streams = streams;
        this.sites = sites;
        this.workers = workers;
        this.admin = admin;
        this.unserved = unserved;
    }

    /** The JSON document. */
    public ObjectNode snapshot() {
        ObjectNode root = json.createObjectNode();
        root.put("state", streams.state().toString());
        Map<String, Long> byState = new TreeMap<>();
        Map<String, Map<String, Long>> byQueue = new TreeMap<>();
        if (streams.state() == KafkaStreams.State.RUNNING) {
            ReadOnlyKeyValueStore<Bytes, byte[]> store = streams.store(
                    StoreQueryParameters.fromNameAndType(TopologyNames.SITES_STORE, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
            try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
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
        root.set("lagByQueue", json.valueToTree(lagByQueue()));
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

    /**
     * Per declared queue: end offsets of its task topic minus the worker group's committed offsets.
     * Like {@code kafka-consumer-groups}, this counts offsets, so a transaction's commit marker shows
     * as one unit of lag per partition until the next task arrives.
     */
    private Map<String, Long> lagByQueue() {
        Map<String, Long> lag = new TreeMap<>();
        try {
            for (String topic : admin.listTopics().names().get(5, TimeUnit.SECONDS)) {
                if (!topic.startsWith(BatonTopics.TASKS_PREFIX)) {
                    continue;
                }
                String queue = topic.substring(BatonTopics.TASKS_PREFIX.length());
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(ClientIds.workerGroup(queue))
                        .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
                int partitions = admin.describeTopics(Set.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic).partitions().size();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                }
                long total = 0;
                for (var e : admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS).entrySet()) {
                    OffsetAndMetadata c = committed.get(e.getKey());
                    total += e.getValue().offset() - (c == null ? 0 : c.offset());
                }
                lag.put(queue, total);
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read consumer lag: " + e.getMessage(), e);
        }
        return lag;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
