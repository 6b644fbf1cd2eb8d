package dev.baton.streams.state;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A byte store that passes every call to the store under it except {@link #getPosition()}, which it
 * answers with an empty position unless the app records consistency vectors.
 *
 * <p>Why: Kafka Streams' change-logging layer asks the store under it for its position after every
 * put and delete, and RocksDB's store answers with a deep copy (maps of maps) merged with its
 * uncommitted deltas; the layer writes that position into the changelog record's headers only when
 * consistency vectors are on ({@code __iq.consistency.offset.vector.enabled__}, off by default, never set
 * by Baton). Without a record cache (the at-least-once sites store) nothing else in Kafka Streams 4.4
 * asks a store under the metered layer for its position: interactive queries are answered by the
 * RocksDB store's own {@code query}, which reads its own position, so they are unchanged. A record
 * cache above this store would merge this position into the one its own IQv2 answers are checked
 * against, so a cached store is left unwrapped. With vectors on, the position is the wrapped store's.
 *
 * <p>Every method of {@link KeyValueStore} and {@link StateStore}, default methods included, is passed
 * through ({@code PositionSkippingStoreTest} fails when Kafka adds one this class does not override):
 * a default left to the interface would change what the store does (offsets it manages, say).
 */
public final class PositionSkippingStore implements KeyValueStore<Bytes, byte[]> {

    private final KeyValueStore<Bytes, byte[]> inner;
    private final StaleRowRestore.RowStamps staleRows;
    private boolean vectors;

    PositionSkippingStore(KeyValueStore<Bytes, byte[]> inner) {
        this(inner, null);
    }

    PositionSkippingStore(KeyValueStore<Bytes, byte[]> inner, StaleRowRestore.RowStamps staleRows) {
        this.inner = inner;
        this.staleRows = staleRows;
    }

    /** Makes {@code supplier}'s stores, each under a {@link PositionSkippingStore}. */
    public static KeyValueBytesStoreSupplier supplier(KeyValueBytesStoreSupplier supplier) {
        return supplier(supplier, null);
    }

    /**
     * As {@link #supplier(KeyValueBytesStoreSupplier)}; with {@code staleRows} (at-least-once's sites store) a restore skips
     * the changelog records that hold a row older than the one restored before them ({@link StaleRowRestore}).
     */
    public static KeyValueBytesStoreSupplier supplier(KeyValueBytesStoreSupplier supplier, StaleRowRestore.RowStamps staleRows) {
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return supplier.name();
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return new PositionSkippingStore(supplier.get(), staleRows);
            }

            @Override
            public String metricsScope() {
                return supplier.metricsScope();
            }
        };
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        vectors = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        inner.init(staleRows == null ? context : StaleRowRestore.context(context, inner, staleRows), root);
    }

    @Override
    public Position getPosition() {
        return vectors ? inner.getPosition() : Position.emptyPosition();
    }

    @Override
    public void put(Bytes key, byte[] value) {
        inner.put(key, value);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        return inner.putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        inner.putAll(entries);
    }

    @Override
    public byte[] delete(Bytes key) {
        return inner.delete(key);
    }

    @Override
    public byte[] get(Bytes key) {
        return inner.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return inner.range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return inner.reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return inner.all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return inner.reverseAll();
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return inner.prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return inner.approximateNumEntries();
    }

    @Override
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return inner.readOnly(isolationLevel);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    @SuppressWarnings("deprecation") // passed through as Kafka Streams calls it
    public void flush() {
        inner.flush();
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        inner.commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return inner.committedOffset(partition);
    }

    @Override
    public boolean managesOffsets() {
        return inner.managesOffsets();
    }

    @Override
    public long approximateNumUncommittedBytes() {
        return inner.approximateNumUncommittedBytes();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return inner.query(query, positionBound, config);
    }

    @Override
    public void close() {
        inner.close();
    }

    @Override
    public boolean persistent() {
        return inner.persistent();
    }

    @Override
    public boolean isOpen() {
        return inner.isOpen();
    }
}
