package dev.baton.streams.state;

import java.nio.file.Path;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** Real RocksDB stores for unit tests of the classes that wrap them, outside a running topology. */
public final class RocksDbStores {

    private RocksDbStores() {
    }

    /** An open, unlogged, uncached store under {@code stateDir}; the caller closes it. */
    static KeyValueStore<Bytes, byte[]> open(String name, Path stateDir) {
        return open(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled().withCachingDisabled(), stateDir);
    }

    /** The store {@code builder} makes, opened under {@code stateDir}; the caller closes it. */
    public static <S extends StateStore> S open(StoreBuilder<S> builder, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, builder.name() + "-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0), stateDir.toFile());
        S store = builder.build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
