package dev.baton.streams.topology;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.processor.SiteProcessorSupplier;
import dev.baton.streams.processor.WorkerCensusProcessor;
import org.apache.kafka.common.serialization.Serdes.ByteArraySerde;
import org.apache.kafka.common.serialization.Serdes.BytesSerde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.TopicNameExtractor;

/**
 * Assembles the streams app's topology.
 *
 * <p>Why this shape: one processor reads both {@code baton.dispatch} and {@code baton.worker-events}.
 * The two topics are co-partitioned, so the task for partition p sees every command and every worker
 * report of the sites hashed to p, in log order, and owns their rows in {@code sites}
 * and {@code deadlines}. Deciding and publishing happen in one exactly-once transaction per commit,
 * which is what makes fencing atomic without locks. The Processor API (not the DSL) is used because
 * each input fans out to a variable set of outputs and the deadline index needs ordered range scans.
 * Values stay bytes through the topology: decoding happens inside the processor so a bad record
 * becomes a dead letter instead of a dead stream thread. The processor also writes clock ticks into
 * its own worker-events partition, so that heartbeat and timeout deadlines wait until every worker
 * report written before them has been read.
 */
public final class BatonTopology {

    private BatonTopology() {
    }

    public static Topology build(SiteProcessorSupplier supplier, EventSerde<WorkerStatus> workerStatus) {
        ByteArrayDeserializer in = new ByteArrayDeserializer();
        ByteArraySerializer out = new ByteArraySerializer();
        Topology topology = new Topology();
        // The census is global: every instance needs every worker to answer "is queue Q served?".
        topology.addGlobalStore(workersStore(supplier.storeKind()), TopologyNames.WORKERS_SOURCE, in, in, BatonTopics.WORKERS, TopologyNames.WORKERS_PROCESSOR,
                () -> new WorkerCensusProcessor(workerStatus, supplier.censusChanges()));
        topology.addSource(TopologyNames.DISPATCH_SOURCE, in, in, BatonTopics.DISPATCH);
        topology.addSource(TopologyNames.WORKER_EVENTS_SOURCE, in, in, BatonTopics.WORKER_EVENTS);
        topology.addProcessor(TopologyNames.SITE_PROCESSOR, supplier, TopologyNames.DISPATCH_SOURCE, TopologyNames.WORKER_EVENTS_SOURCE);
        topology.addSink(TopologyNames.TASKS_SINK, taskTopic(), out, out, TopologyNames.SITE_PROCESSOR);
        topology.addSink(TopologyNames.WORKER_CONTROL_SINK, BatonTopics.WORKER_CONTROL, out, out, TopologyNames.SITE_PROCESSOR);
        topology.addSink(TopologyNames.RESULTS_SINK, BatonTopics.RESULTS, out, out, TopologyNames.SITE_PROCESSOR);
        topology.addSink(TopologyNames.HISTORY_SINK, BatonTopics.HISTORY, out, out, TopologyNames.SITE_PROCESSOR);
        topology.addSink(TopologyNames.DLQ_SINK, BatonTopics.DLQ, out, out, TopologyNames.SITE_PROCESSOR);
        topology.addSink(TopologyNames.CLOCK_SINK, BatonTopics.WORKER_EVENTS, out, out, toOwnPartition(), TopologyNames.SITE_PROCESSOR);
        return topology;
    }

    /**
     * The global {@code workers} store. RocksDB, not the in-memory store, because stream threads scan
     * it while the global thread writes it: the in-memory store is a TreeMap written under a lock and
     * read without one, and a worker's tombstone landing mid-scan made the census throw
     * NoSuchElementException, which dead-lettered the dispatch being decided (its caller never heard
     * back). A RocksDB iterator reads a consistent snapshot.
     */
    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> workersStore() {
        return workersStore(Stores::persistentKeyValueStore);
    }

    /** As {@link #workersStore()}, of the kind {@code storeKind} makes (a single-threaded test driver may use memory). */
    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> workersStore(Function<String, KeyValueBytesStoreSupplier> storeKind) {
        return Stores.keyValueStoreBuilder(storeKind.apply(TopologyNames.WORKERS_STORE), new BytesSerde(), new ByteArraySerde())
                .withLoggingDisabled();
    }

    /** A clock tick goes to the partition its key names: the writing task's own worker-events partition. */
    private static StreamPartitioner<byte[], byte[]> toOwnPartition() {
        return (topic, key, value, partitions) -> Optional.of(Set.of(ByteBuffer.wrap(key).getInt()));
    }

    /** The queue's task topic, chosen by the processor and carried in a header. */
    private static TopicNameExtractor<byte[], byte[]> taskTopic() {
        return (key, value, context) -> {
            Header h = context.headers().lastHeader(TopologyNames.TASK_TOPIC_HEADER);
            if (h == null) {
                throw new IllegalStateException("task record without " + TopologyNames.TASK_TOPIC_HEADER + " header");
            }
            return new String(h.value(), StandardCharsets.UTF_8);
        };
    }
}
