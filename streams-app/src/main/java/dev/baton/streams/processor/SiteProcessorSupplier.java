package dev.baton.streams.processor;

import java.util.Set;
import java.util.function.Function;

import dev.baton.events.RetryPolicy;
import dev.baton.events.store.SiteState;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.state.PositionSkippingStore;
import org.apache.kafka.common.serialization.Serdes.ByteArraySerde;
import org.apache.kafka.common.serialization.Serdes.BytesSerde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** Supplies {@link SiteProcessor}s and declares the two stores they own. */
public final class SiteProcessorSupplier implements ProcessorSupplier<byte[], byte[], byte[], byte[]> {

    /**
     * Everything a processor needs besides its context. {@code atLeastOnce}: the
     * app runs with {@code processing.guarantee=at_least_once}, so a restored state may be ahead of
     * its committed input and deadlines fire through deadline records ({@link DeadlineRecords}).
     * {@code sitesCached}: the {@code sites} store sits behind Kafka Streams' record cache (exactly-once with
     * {@code statestore.cache.max.bytes} above 0; Kafka Streams builds every store uncached when it is 0).
     * {@code tokenKey}: the key new sites' token secrets are derived from, or null for random secrets.
     */
    public record Settings(EventSerdes serdes, SiteMetrics metrics, QueueDirectory queues, QueueService queueService,
                           long workerStaleMs, RetryPolicy defaultRetryPolicy, long heartbeatWindowMs, long dedupeWindowMs, long timerResolutionMs,
                           int maxPayloadBytes, int transportLossBudget, QueueTimeouts queueTimeouts,
                           InputPartitions inputPartitions, boolean atLeastOnce, boolean sitesCached, byte[] tokenKey) {
        public Settings {
            if (atLeastOnce && sitesCached) {
                throw new IllegalArgumentException("the sites store may sit behind the record cache only under exactly-once, was cached "
                        + "under at-least-once");
            }
        }
    }

    private final Settings settings;
    private final Function<String, KeyValueBytesStoreSupplier> storeKind;
    private final CensusChanges censusChanges = new CensusChanges();
    private volatile PauseGuard pauseGuard = PauseGuard.NONE;

    public SiteProcessorSupplier(Settings settings) {
        this(settings, Stores::persistentKeyValueStore);
    }

    /** {@code storeKind} makes the stores by name: RocksDB in production, in-memory (and pre-loaded) in model tests. */
    public SiteProcessorSupplier(Settings settings, Function<String, KeyValueBytesStoreSupplier> storeKind) {
        this.settings = settings;
        this.storeKind = storeKind;
    }

    /** A stored row's {dispatchOffset, eventsOffset}, or null when it cannot be decoded. */
    private long[] rowStamps(byte[] row) {
        try {
            SiteState state = settings.serdes().siteState().decode(TopologyNames.SITES_SUBJECT_TOPIC, row);
            return new long[] {state.getDispatchOffset(), state.getEventsOffset()};
        } catch (RuntimeException undecodable) {
            return null;
        }
    }

    /** At-least-once: processors refuse to write a step decided after a long pause of the JVM (see {@link PauseGuard}). */
    public SiteProcessorSupplier withPauseGuard(PauseGuard guard) {
        this.pauseGuard = guard;
        return this;
    }

    @Override
    public Processor<byte[], byte[], byte[], byte[]> get() {
        return new SiteProcessor(settings, censusChanges, pauseGuard);
    }

    /** Makes the topology's stores by name: the site processor's, and the global census. */
    public Function<String, KeyValueBytesStoreSupplier> storeKind() {
        return storeKind;
    }

    /** Shared with the census processor that writes the {@code workers} store. */
    public CensusChanges censusChanges() {
        return censusChanges;
    }

    @Override
    public Set<StoreBuilder<?>> stores() {
        // sites: changelogged. Behind Kafka Streams' record cache when the user gives it memory (exactly-once only):
        // a row written several times between two commits (dispatched, leased, completed) reaches the changelog
        // once, with its last value, when the commit flushes the cache, still inside the transaction that made it
        // (Streams flushes the cache before it flushes the producer and commits). What reaches the changelog is
        // a subset of the row's writes, so a restore sees nothing it could not before. At-least-once: outputs are
        // visible as soon as they are sent, so a row write held in the cache until the next commit could be lost
        // in a crash after its answer went out, and the input read again decided differently (the model check
        // found it: AttemptRefused, then SiteCollision).
        // Uncached (at-least-once, and exactly-once by default): the change-logging layer copies the store's
        // position on every write for a header it does not write (see PositionSkippingStore). A cached store keeps
        // Kafka's store as it is: its record cache merges that position into the one an IQv2 query answered from
        // the cache is checked against.
        // deadlines: the expiry tier of the DeadlineIndex, derived from the sites
        // rows (each row carries its armed deadlines) and rebuilt when a task starts, so no
        // changelog. It is in RocksDB rather than memory: it holds an EXPIRE entry for every site
        // resolved within the dedupe window.
        KeyValueBytesStoreSupplier sitesKind = storeKind.apply(TopologyNames.SITES_STORE);
        StoreBuilder<?> sites = settings.sitesCached()
                ? Stores.keyValueStoreBuilder(sitesKind, new BytesSerde(), new ByteArraySerde()).withCachingEnabled()
                : Stores.keyValueStoreBuilder(PositionSkippingStore.supplier(sitesKind, settings.atLeastOnce() ? this::rowStamps : null),
                        new BytesSerde(), new ByteArraySerde()).withCachingDisabled();
        return Set.of(
                sites,
                Stores.keyValueStoreBuilder(storeKind.apply(TopologyNames.DEADLINES_STORE), new BytesSerde(), new ByteArraySerde())
                        .withCachingDisabled().withLoggingDisabled());
    }
}
