package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.baton.schemas.EventExamples.Example;
import dev.baton.schemas.registry.SchemaRegistry;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Fuzzes every event deserializer: whatever the bytes, decoding returns a value or throws
 * {@link UndecodableRecordException} naming where the record was — never anything else, never an
 * out-of-memory from a forged length. Fixed seed so CI replays the same 10,000 cases per path.
 */
class DeserializerFuzzProperties {

    private static final SchemaRegistry REGISTRY = SchemaRegistry.forUrl("mem://fuzz", Map.of());
    private static final List<Example> EXAMPLES = EventExamples.all();

    @SuppressWarnings("unchecked")
    private static EventSerde<SpecificRecord> serde(int type) {
        return EventSerde.of((Class<SpecificRecord>) EXAMPLES.get(type).event().getClass(), REGISTRY);
    }

    private static byte[] valid(int type) {
        return serde(type).encode(EXAMPLES.get(type).topic(), EXAMPLES.get(type).event());
    }

    @Provide
    Arbitrary<byte[]> anyBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
    }

    @Property(tries = 10_000, seed = "42")
    void randomBytesNeverEscapeAsAnythingButUndecodable(@ForAll("anyBytes") byte[] bytes, @ForAll @IntRange(min = 0, max = 7) int type) {
        assertDecodesOrIsUndecodable(type, bytes);
    }

    @Property(tries = 10_000, seed = "43")
    void aValidHeaderWithARandomBodyNeverEscapes(@ForAll("anyBytes") byte[] body, @ForAll @IntRange(min = 0, max = 7) int type) {
        byte[] header = Arrays.copyOf(valid(type), EventSerde.HEADER_BYTES);
        byte[] bytes = Arrays.copyOf(header, header.length + body.length);
        System.arraycopy(body, 0, bytes, header.length, body.length);
        assertDecodesOrIsUndecodable(type, bytes);
    }

    @Property(tries = 10_000, seed = "44")
    void aTruncatedOrBitFlippedRecordNeverEscapes(@ForAll @IntRange(min = 0, max = 7) int type, @ForAll @IntRange(min = 0, max = 400) int cut,
                                                 @ForAll @IntRange(min = 0, max = 400) int flip, @ForAll byte mask) {
        byte[] bytes = valid(type);
        bytes = Arrays.copyOf(bytes, Math.min(bytes.length, cut));
        if (bytes.length > 0) {
            bytes[flip % bytes.length] ^= mask;
        }
        assertDecodesOrIsUndecodable(type, bytes);
    }

    private static void assertDecodesOrIsUndecodable(int type, byte[] bytes) {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("fuzz-topic", 3, 77L, null, bytes);
        try {
            serde(type).decode(record);
        } catch (UndecodableRecordException e) {
            assertThat(e.topic()).isEqualTo("fuzz-topic");
            assertThat(e.partition()).isEqualTo(3);
            assertThat(e.offset()).isEqualTo(77L);
        }
    }
}
