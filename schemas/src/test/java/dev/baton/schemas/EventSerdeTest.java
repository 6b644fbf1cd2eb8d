package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.baton.events.Outcome;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.EventExamples.Example;
import dev.baton.schemas.UndecodableRecordException.Reason;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class EventSerdeTest {

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of());

    @Test
    void shouldRoundTripEveryEventTypeInTheConfluentWireFormat() {
        for (Example sample : EventExamples.all()) {
            EventSerde<SpecificRecord> serde = serdeFor(sample.event());
            byte[] bytes = serde.encode(sample.topic(), sample.event());

            assertThat(bytes[0]).as("magic byte").isEqualTo((byte) 0);
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            assertThat(registry.schemaById(id)).isEqualTo(sample.event().getSchema());
            assertThat(registry.latest(sample.topic() + "-value")).hasValueSatisfying(r -> assertThat(r.id()).isEqualTo(id));
            assertThat(serde.decode(sample.topic(), bytes)).isEqualTo(sample.event());
        }
    }

    @Test
    void shouldWriteTheSameBodyAsAvrosSchemaDrivenWriter() throws Exception {
        // The serde uses the generated classes' own encoders; they must agree byte for byte with the
        // schema it registers, or readers elsewhere (other languages, registry tooling) would misread.
        for (Example sample : EventExamples.all()) {
            byte[] bytes = serdeFor(sample.event()).encode(sample.topic(), sample.event());
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(body, null);
            new SpecificDatumWriter<SpecificRecord>(sample.event().getSchema()).write(sample.event(), encoder);

            assertThat(Arrays.copyOfRange(bytes, EventSerde.HEADER_BYTES, bytes.length)).as(sample.topic()).isEqualTo(body.toByteArray());
        }
    }

    @Test
    void shouldNameTopicPartitionAndOffsetForAWrongMagicByte() {
        byte[] bytes = encodedOutcome();
        bytes[0] = 7;
        assertUndecodable(bytes, Reason.WRONG_MAGIC_BYTE);
    }

    @Test
    void shouldNameTopicPartitionAndOffsetForAnUnknownSchemaId() {
        byte[] bytes = encodedOutcome();
        bytes[1] = 0x7f; // id far beyond anything registered
        assertUndecodable(bytes, Reason.UNKNOWN_SCHEMA_ID);
    }

    @Test
    void shouldNameTopicPartitionAndOffsetForATruncatedBody() {
        byte[] bytes = encodedOutcome();
        assertUndecodable(Arrays.copyOf(bytes, bytes.length - 6), Reason.TRUNCATED);
    }

    @Test
    void shouldNameTopicPartitionAndOffsetForAShortHeader() {
        assertUndecodable(new byte[] {0, 0, 1}, Reason.TRUNCATED);
    }

    @Test
    void shouldNameTopicPartitionAndOffsetForCorruptBytes() {
        byte[] bytes = encodedOutcome();
        byte[] corrupt = Arrays.copyOf(bytes, bytes.length + 4); // trailing garbage after a full record
        assertUndecodable(corrupt, Reason.CORRUPT_BODY);
    }

    @Test
    void shouldRefuseARecordWrittenWithAnotherEventsSchema() {
        SpecificRecord event = EventExamples.all().get(1).event(); // a WorkerEvent
        byte[] bytes = serdeFor(event).encode(BatonTopics.WORKER_EVENTS, event);
        assertUndecodable(bytes, Reason.INCOMPATIBLE_SCHEMA);
    }

    /** The thread's decoder is reused: a record that failed half-way, or a larger one, leaves nothing behind for the next. */
    @Test
    void shouldDecodeEachRecordAloneOnAThreadThatDecodedOthers() {
        EventSerde<Outcome> serde = EventSerde.of(Outcome.class, registry);
        Outcome outcome = (Outcome) EventExamples.all().get(5).event();
        byte[] bytes = encodedOutcome();
        assertUndecodable(Arrays.copyOf(bytes, bytes.length - 6), Reason.TRUNCATED);
        assertThat(serde.decode(BatonTopics.RESULTS, bytes)).isEqualTo(outcome);
        Outcome longer = Outcome.newBuilder(outcome).setReason("r".repeat(70_000)).setRequestId("a longer request id").build();
        assertThat(serde.decode(BatonTopics.RESULTS, serde.encode(BatonTopics.RESULTS, longer))).isEqualTo(longer);
        assertThat(serde.decode(BatonTopics.RESULTS, bytes)).isEqualTo(outcome);
    }

    /**
     * Five bytes forge one more level of a failure's causes (empty type, message and stack, no details, a cause): a record
     * under Kafka's default size limit nests hundreds of thousands deep. Avro reads each level in a stack frame of its own;
     * the record must be refused as corrupt, not end the reading thread with a StackOverflowError.
     */
    @Test
    void shouldRefuseAnOutcomeWhoseFailureCausesNestDeeperThanTheStack() {
        EventSerde<Outcome> serde = EventSerde.of(Outcome.class, registry); // first: it makes Avro trust Baton's classes
        Outcome outcome = Outcome.newBuilder((Outcome) EventExamples.all().get(5).event()).setFailure(null).build();
        byte[] bytes = serde.encode(BatonTopics.RESULTS, outcome);
        // The failure is the last field: its "no failure" branch is the record's last byte.
        assertUndecodable(withNestedFailure(Arrays.copyOf(bytes, bytes.length - 1), 300_000, new byte[0]), Reason.CORRUPT_BODY);
    }

    @Test
    void shouldRefuseAWorkerEventWhoseFailureCausesNestDeeperThanTheDirectDecoderReads() {
        EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, registry);
        WorkerEvent event = WorkerEvent.newBuilder((WorkerEvent) EventExamples.all().get(1).event()).setFailure(null)
                .setHeartbeatContentType(null).build();
        byte[] bytes = serde.encode(BatonTopics.WORKER_EVENTS, event);
        // The failure's "none" branch and then the heartbeat content type's are the last two bytes.
        byte[] prefix = Arrays.copyOf(bytes, bytes.length - 2);
        byte[] noContentType = {0};
        WorkerEvent deepest = serde.decode(BatonTopics.WORKER_EVENTS, withNestedFailure(prefix, EventSerde.MAX_FAILURE_DEPTH, noContentType));
        assertThat(deepest.getFailure()).isNotNull();

        assertThatThrownBy(() -> serde.decode(BatonTopics.WORKER_EVENTS,
                withNestedFailure(prefix, EventSerde.MAX_FAILURE_DEPTH + 1, noContentType)))
                .isInstanceOfSatisfying(UndecodableRecordException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY))
                .hasMessageContaining("nest deeper than " + EventSerde.MAX_FAILURE_DEPTH);
        assertThatThrownBy(() -> serde.decode(BatonTopics.WORKER_EVENTS, withNestedFailure(prefix, 300_000, noContentType)))
                .isInstanceOfSatisfying(UndecodableRecordException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY));
    }

    /**
     * One bound however a record is read (h/adv34): a worker event written with an older compatible schema (before
     * heartbeatContentType) goes through Avro's resolving reader, not the direct decoder, and must be refused past the same
     * depth. Else the streams app took its failure in and published an outcome the client's decoder then refused: a caller
     * never answered.
     */
    @Test
    void shouldRefuseAFailureNestedPastTheBoundThroughAvrosReaderToo() {
        EventSerde<WorkerEvent> serde = EventSerde.of(WorkerEvent.class, registry);
        WorkerEvent event = WorkerEvent.newBuilder((WorkerEvent) EventExamples.all().get(1).event()).setFailure(null)
                .setHeartbeatContentType(null).build();
        byte[] current = serde.encode(BatonTopics.WORKER_EVENTS, event);
        Schema own = WorkerEvent.getClassSchema();
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : own.getFields().subList(0, own.getFields().size() - 1)) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        int olderId = registry.register(BatonTopics.WORKER_EVENTS + "-value",
                Schema.createRecord(own.getName(), own.getDoc(), own.getNamespace(), false, fields));
        byte[] prefix = Arrays.copyOf(current, current.length - 2); // less the failure's and the content type's "none"
        ByteBuffer.wrap(prefix, 1, 4).putInt(olderId);

        WorkerEvent deepest = serde.decode(BatonTopics.WORKER_EVENTS, withNestedFailure(prefix, EventSerde.MAX_FAILURE_DEPTH, new byte[0]));
        assertThat(deepest.getFailure()).isNotNull();
        assertThatThrownBy(() -> serde.decode(BatonTopics.WORKER_EVENTS, withNestedFailure(prefix, EventSerde.MAX_FAILURE_DEPTH + 1, new byte[0])))
                .isInstanceOfSatisfying(UndecodableRecordException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT_BODY))
                .hasMessageContaining("nest deeper than " + EventSerde.MAX_FAILURE_DEPTH);
    }

    /** {@code prefix}, a present failure with {@code levels} levels of causes (the last without one), then {@code suffix}. */
    private static byte[] withNestedFailure(byte[] prefix, int levels, byte[] suffix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(prefix);
        out.write(2); // the union's second branch: a failure
        for (int level = 1; level <= levels; level++) {
            out.writeBytes(new byte[] {0, 0, 0, 0}); // type "", message "", no details, stack ""
            out.write(level < levels ? 2 : 0); // a cause, or none
        }
        out.writeBytes(suffix);
        return out.toByteArray();
    }

    @Test
    void shouldDecodeATombstoneToNull() {
        assertThat(EventSerde.of(WorkerEvent.class, registry).decode(BatonTopics.WORKERS, null)).isNull();
    }

    private byte[] encodedOutcome() {
        Outcome outcome = (Outcome) EventExamples.all().get(5).event();
        return EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, outcome);
    }

    private void assertUndecodable(byte[] bytes, Reason reason) {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(BatonTopics.RESULTS, 4, 1234L, null, bytes);
        assertThatThrownBy(() -> EventSerde.of(Outcome.class, registry).decode(record))
                .isInstanceOfSatisfying(UndecodableRecordException.class, e -> {
                    assertThat(e.reason()).isEqualTo(reason);
                    assertThat(e.topic()).isEqualTo(BatonTopics.RESULTS);
                    assertThat(e.partition()).isEqualTo(4);
                    assertThat(e.offset()).isEqualTo(1234L);
                    assertThat(e.getMessage()).contains("baton.results", "partition 4", "offset 1234");
                });
    }

    @SuppressWarnings("unchecked")
    private EventSerde<SpecificRecord> serdeFor(SpecificRecord event) {
        return EventSerde.of((Class<SpecificRecord>) event.getClass(), registry);
    }
}
