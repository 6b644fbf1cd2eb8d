package dev.baton.streams.processor;

import java.util.Set;

import dev.baton.events.RetryPolicy;
import dev.baton.streams.topology.TopologyNames;
import org.apache.kafka.common.serialization.Serdes.BytesSerde;
import org.apache.kafka.common.serialization.Serdes.ByteArraySerde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** Supplies {@link SiteProcessor}s and declares the three stores they own. */
public final class SiteProcessorSupplier implements ProcessorSupplier<byte[], byte[], byte[], byte[]> {

    /** Everything a processor needs besides its context. */
    public record Settings(Serdes serdes, SiteMetrics metrics, QueueDirectory queues, QueueService queueService,
                           long workerStaleMs, RetryPolicy defaultRetryPolicy, long heartbeatWindowMs, long dedupeWindowMs, long timerResolutionMs,
                           int maxPayloadBytes, int transportLossBudget, dev.baton.streams.config.QueueTimeouts queueTimeouts) {
    }

    private final Settings settings;

    public SiteProcessorSupplier(Settings settings) {
        this.settings = settings;
    }

    @Override
    public Processor<byte[], byte[], byte[], byte[]> get() {
        return new SiteProcessor(settings);
    }

    @Override
    public Set<StoreBuilder<?>> stores() {
        return Set.of(store(TopologyNames.SITES_STORE), store(TopologyNames.FENCES_STORE), store(TopologyNames.DEADLINES_STORE));
    }

    private static StoreBuilder<KeyValueStore<Bytes, byte[]>> store(String name) {
        // Persistent RocksDB, changelogged; no caching so every write reaches the changelog in the
        // transaction that caused it.
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), new BytesSerde(), new ByteArraySerde())
                .withCachingDisabled();
    }
}
