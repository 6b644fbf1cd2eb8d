package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** Adversarial review (h/adv38): the projected decode against Avro's resolving reader and EventSerde. */
class Adv38DecodeTest {

    private static byte[] encode(Schema schema, GenericRecord value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema).write(value, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static ProjectedRow planRead(Schema writer, Schema reader, byte[] body, String... paths) throws IOException {
        Projection projection = Projection.of(reader, paths);
        ProjectedRow row = new ProjectedRow(projection.size());
        row.reader.reset(body, 0, body.length);
        ProjectionPlan.compile(writer, projection).decode(row.reader, row);
        assertThat(row.reader.isEnd()).isTrue();
        return row;
    }

    /** Avro resolves a long written into a float reader field as a float: 2^24+1 becomes 2^24. */
    @Test
    void longWrittenReadAsFloatIsRoundedToFloatAsAvroDoes() throws IOException {
        Schema writer = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"long\"}]}");
        Schema reader = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"float\"}]}");
        GenericData.Record rec = new GenericData.Record(writer);
        rec.put("v", 16_777_217L);
        byte[] body = encode(writer, rec);
        GenericRecord avro = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null));
        double expected = ((Float) avro.get("v")).doubleValue();
        assertThat(expected).isEqualTo(16_777_216.0);
        assertThat(planRead(writer, reader, body, "v").getDouble(0)).isEqualTo(expected);
    }

    @Test
    void intWrittenReadAsFloatIsRoundedToFloatAsAvroDoes() throws IOException {
        Schema writer = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"}]}");
        Schema reader = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"float\"}]}");
        GenericData.Record rec = new GenericData.Record(writer);
        rec.put("v", 123_456_789);
        byte[] body = encode(writer, rec);
        GenericRecord avro = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null));
        double expected = ((Float) avro.get("v")).doubleValue();
        assertThat(planRead(writer, reader, body, "v").getDouble(0)).isEqualTo(expected);
    }

    /**
     * The reader's field "a" answers to the writer's "x" (alias), and the reader also has a field named "x". Avro applies the
     * reader's aliases to the writer (Schema.applyAliases): the writer's x is read as the reader's a, and the reader's x
     * takes its default.
     */
    @Test
    void anAliasNamingAnotherReaderFieldResolvesAsAvroDoes() throws IOException {
        Schema writer = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"long\"}]}");
        Schema reader = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"a\",\"type\":\"long\",\"aliases\":[\"x\"],\"default\":0},"
                + "{\"name\":\"x\",\"type\":\"long\",\"default\":7}]}");
        GenericData.Record rec = new GenericData.Record(writer);
        rec.put("x", 42L);
        byte[] body = encode(writer, rec);
        GenericRecord avro = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null));
        ProjectedRow row = planRead(writer, reader, body, "a", "x");
        assertThat(new Object[] {row.getLong(0), row.getLong(1)}).isEqualTo(new Object[] {avro.get("a"), avro.get("x")});
    }

    /** The writer has both "a" and "b"; the reader's "a" also answers to "b". */
    @Test
    void aWriterFieldAndAnAliasOfTheSameReaderFieldResolveAsAvroDoes() throws IOException {
        Schema writer = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"long\"}]}");
        Schema reader = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"a\",\"type\":\"long\",\"aliases\":[\"b\"]}]}");
        GenericData.Record rec = new GenericData.Record(writer);
        rec.put("a", 1L);
        rec.put("b", 2L);
        byte[] body = encode(writer, rec);
        Object avroA;
        try {
            avroA = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null)).get("a");
        } catch (RuntimeException e) {
            avroA = "refused: " + e.getClass().getSimpleName();
        }
        Object planA;
        try {
            planA = planRead(writer, reader, body, "a").getLong(0);
        } catch (RuntimeException e) {
            planA = "refused: " + e.getClass().getSimpleName();
        }
        assertThat(planA).isEqualTo(avroA);
    }

    /**
     * A HistoryEvent whose kind index (the body's first varint) is out of the enum's range: EventSerde refuses it as a
     * CORRUPT_BODY (Avro's AvroTypeException / index out of bounds); the projected reader must give the same reason.
     */
    @Test
    void anEnumIndexOutOfRangeIsRefusedForTheReasonEventSerdeGives() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv38-enum", Map.of());
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        HistoryEvent event = HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED)
                .setSite(new SiteRef("ns", "wf", "act")).setAttempt(1).setAtMillis(5L).build();
        byte[] bytes = serde.encode("baton.history", event);
        assertThat(bytes[5]).isEqualTo((byte) 0); // DISPATCHED is index 0, one varint byte
        for (byte bad : new byte[] {42, 1}) { // index 21 (one past the last symbol) and index -1
            byte[] damaged = bytes.clone();
            damaged[5] = bad;
            UndecodableRecordException full = catchThrowableOfType(() -> serde.decode("baton.history", damaged), UndecodableRecordException.class);
            ProjectedReader projected = new ProjectedReader(registry, Projection.of(HistoryEvent.getClassSchema(), "kind", "attempt"));
            UndecodableRecordException mine = catchThrowableOfType(() -> projected.decode("baton.history", damaged, projected.newRow()),
                    UndecodableRecordException.class);
            assertThat(full).as("EventSerde refuses index byte " + bad).isNotNull();
            assertThat(mine).as("projected refuses index byte " + bad).isNotNull();
            assertThat(mine.reason()).as("reason for index byte " + bad + " (EventSerde: " + full.getMessage() + ")").isEqualTo(full.reason());
        }
    }

    /**
     * A reader "bytes" field the writer lacks, with a default: Avro's Field.defaultVal() is a byte[] for bytes (the JSON
     * string's ISO-8859-1 bytes), and ProjectionPlan.Compiler.defaultOf takes value.toString(), i.e. "[B@…".
     */
    @Test
    void aBytesDefaultIsTheDefaultsBytesAsAvroReadsIt() throws IOException {
        Schema writer = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"long\"}]}");
        Schema reader = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":\"long\"},"
                + "{\"name\":\"blob\",\"type\":\"bytes\",\"default\":\"abc\"}]}");
        GenericData.Record rec = new GenericData.Record(writer);
        rec.put("v", 1L);
        byte[] body = encode(writer, rec);
        GenericRecord avro = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null));
        java.nio.ByteBuffer expected = (java.nio.ByteBuffer) avro.get("blob");
        byte[] expectedBytes = new byte[expected.remaining()];
        expected.duplicate().get(expectedBytes);
        assertThat(planRead(writer, reader, body, "blob").bytes(0)).isEqualTo(expectedBytes);
    }

    /**
     * An array block written with a negative count and a byte size that does not match its items (count -1, size 100, one
     * item). Avro's reader, reading the array (it is in the reader schema, just not projected), ignores the size and reads
     * the item, and then the next field: the value decodes. Settled (issue 30, h/decode39): the plan reads a field the
     * reader has item by item, and skips by the block size only a field the reader lacks, as Avro skips it
     * ({@link AvroResolutionProperties#avroReadsAReaderArrayItemByItemAndSkipsAWriterOnlyOneByItsBlockSize}).
     */
    @Test
    void anUnprojectedArrayIsReadAsAvroReadsItNotByItsBlockSize() throws IOException {
        Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                + "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},{\"name\":\"v\",\"type\":\"long\"}]}");
        byte[] body = {1, (byte) 200, 1, 2, 0, 14}; // count -1, size 100, item 1, end, v = 7
        GenericRecord avro = new GenericDatumReader<GenericRecord>(schema, schema).read(null, DecoderFactory.get().binaryDecoder(body, null));
        assertThat(avro.get("v")).isEqualTo(7L);
        assertThat(planRead(schema, schema, body, "v").getLong(0)).isEqualTo(7L);
    }

    /**
     * The same damaged kind index, with "kind" not projected: EventSerde refuses the value (CORRUPT_BODY), the projected
     * reader skips the enum as an int (ProjectionPlan.Compiler.skip: ENUM -> SKIP_INT, no range check) and accepts it.
     */
    @Test
    void anUnprojectedEnumIndexOutOfRangeIsRefusedAsEventSerdeRefusesIt() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv38-enum-skip", Map.of());
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        HistoryEvent event = HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED)
                .setSite(new SiteRef("ns", "wf", "act")).setAttempt(1).setAtMillis(5L).build();
        byte[] damaged = serde.encode("baton.history", event);
        damaged[5] = 42; // kind index 21: one past the last symbol
        UndecodableRecordException full = catchThrowableOfType(() -> serde.decode("baton.history", damaged), UndecodableRecordException.class);
        assertThat(full).isNotNull();
        ProjectedReader projected = new ProjectedReader(registry, Projection.of(HistoryEvent.getClassSchema(), "attempt", "atMillis"));
        UndecodableRecordException mine = catchThrowableOfType(() -> projected.decode("baton.history", damaged, projected.newRow()),
                UndecodableRecordException.class);
        assertThat(mine).as("the projected reader refuses what EventSerde refuses: " + full.getMessage()).isNotNull();
        assertThat(mine.reason()).isEqualTo(full.reason());
    }
}
