package dev.baton.streams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sites store's wrapper on a real RocksDB: everything but the position passes through. */
class PositionSkippingStoreTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldOverrideEveryMethodOfTheStoreInterfaces() {
        List<String> missing = new ArrayList<>();
        for (Method m : KeyValueStore.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                PositionSkippingStore.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("interface methods left to their defaults").isEmpty();
    }

    @Test
    void shouldPassWritesReadsAndScansThrough() {
        KeyValueStore<Bytes, byte[]> store = open(false);
        try {
            store.put(key("b"), value("2"));
            store.putAll(List.of(KeyValue.pair(key("a"), value("1")), KeyValue.pair(key("c"), value("3"))));
            store.delete(key("c"));

            assertThat(store.get(key("a"))).isEqualTo(value("1"));
            assertThat(store.get(key("c"))).isNull();
            assertThat(store.putIfAbsent(key("b"), value("9"))).isEqualTo(value("2"));
            try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
                List<String> keys = new ArrayList<>();
                it.forEachRemaining(kv -> keys.add(new String(kv.key.get(), StandardCharsets.UTF_8)));
                assertThat(keys).containsExactly("a", "b");
            }
        } finally {
            store.close();
        }
    }

    @Test
    void shouldReportAnEmptyPositionWithoutConsistencyVectors() {
        KeyValueStore<Bytes, byte[]> store = open(false);
        try {
            store.put(key("a"), value("1"));

            assertThat(store.getPosition()).isEqualTo(Position.emptyPosition());
        } finally {
            store.close();
        }
    }

    @Test
    void shouldReportTheStoresPositionWithConsistencyVectors() {
        KeyValueStore<Bytes, byte[]> store = open(true);
        try {
            store.put(key("a"), value("1"));

            assertThat(store.getPosition()).isEqualTo(Position.emptyPosition().withComponent("input", 3, 42L));
        } finally {
            store.close();
        }
    }

    /** The sites store as the topology builds it, without its changelog (a mock context cannot write one), at input offset 42. */
    private KeyValueStore<Bytes, byte[]> open(boolean vectors) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "position-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, vectors);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 3), stateDir.toFile());
        context.setRecordMetadata("input", 3, 42L);
        KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(PositionSkippingStore.supplier(Stores.persistentKeyValueStore("sites")),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
