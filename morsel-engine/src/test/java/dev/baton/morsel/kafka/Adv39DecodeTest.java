package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (h/adv39): Avro 1.12.2 bounds the items of a collection whose items take no bytes (array of null)
 * by SystemLimitException.checkMaxCollectionAllocation: min(2^31-9, maxMemory/32) items in one datum read (the scope
 * GenericDatumReader.skip opens, FastReaderBuilder's checkArrayBlock), refused as a SystemLimitException (an
 * AvroRuntimeException), which EventSerde reports as CORRUPT_BODY. The plan's skip (PlanSteps.blocks,
 * WireReader.blockCount) only bounds a block by 2^31-9 and steps through the null items, so it reads the value.
 */
class Adv39DecodeTest {

    private static void writeLong(ByteArrayOutputStream out, long v) {
        long n = (v << 1) ^ (v >> 63);
        while ((n & ~0x7fL) != 0) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
    }

    @Test
    void aWriterOnlyArrayOfNullsOverAvrosAllocationLimitIsRefusedAsEventSerdeRefusesIt() throws Exception {
        Schema reader = HistoryEvent.getClassSchema();
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : reader.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(new Schema.Field("junk", Schema.createArray(Schema.create(Schema.Type.NULL)), null, new ArrayList<>()));
        Schema writer = Schema.createRecord(reader.getName(), reader.getDoc(), reader.getNamespace(), false, fields);

        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv39-nulls", Map.of());
        int id = registry.register(BatonTopics.HISTORY + "-value", writer);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0);
        body.writeBytes(ByteBuffer.allocate(4).putInt(id).array());
        byte[] plain = EventSerde.of(HistoryEvent.class, registry).encode(BatonTopics.HISTORY, HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED)
                .setSite(new SiteRef("ns", "wf", "1")).setAttempt(1).setRequestId("r").setQueue("q").setActivityType("t").setAtMillis(5L).build());
        body.write(plain, 5, plain.length - 5); // the reader's fields, as the writer writes them first
        long limit = Math.min(Integer.MAX_VALUE - 8, Math.max(1, Runtime.getRuntime().maxMemory() / 4) / 8); // Avro's default
        writeLong(body, limit + 1); // one block of limit + 1 nulls (no bytes each)
        writeLong(body, 0);
        byte[] value = body.toByteArray();

        Throwable avro = catchThrowable(() -> EventSerde.of(HistoryEvent.class, registry).decode(BatonTopics.HISTORY, value));
        assertThat(avro).as("EventSerde").isInstanceOf(UndecodableRecordException.class);
        UndecodableRecordException.Reason want = ((UndecodableRecordException) avro).reason();

        ProjectedReader projected = new ProjectedReader(registry, Projection.of(HistoryEvent.getClassSchema(), "kind", "atMillis", "requestId"));
        Throwable plan = catchThrowable(() -> projected.decode(BatonTopics.HISTORY, value, projected.newRow()));
        assertThat(plan).as("the projected reader refuses what EventSerde refuses (%s: %s)", want, avro.getMessage())
                .isInstanceOf(UndecodableRecordException.class);
        assertThat(((UndecodableRecordException) plan).reason()).isEqualTo(want);
    }

    /**
     * An array the reader has, read item by item by the plan (PlanSteps.items), whose block count promises more items than
     * bytes remain and whose first item is a string of negative length. Avro 1.12.2's fast reader (FastReaderBuilder
     * checkArrayBlock -> GenericDatumReader.ensureAvailableCollectionBytes) checks count x minimum item size against the
     * bytes left before reading an item: an EOFException, which EventSerde reports as TRUNCATED. The plan reads the first
     * item and refuses its negative length: an IOException, CORRUPT_BODY.
     */
    @Test
    void anArrayBlockPromisingMoreItemsThanBytesIsTruncatedAsAvroSaysBeforeItsFirstItem() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "arr", "type": {"type": "array", "items": "string"}}, {"name": "v", "type": "long"}]}""");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeLong(body, 1000); // a block of 1,000 strings
        writeLong(body, -1); // the first one's length: negative
        writeLong(body, 0);
        writeLong(body, 7);
        byte[] bytes = body.toByteArray();
        String avro;
        try {
            org.apache.avro.io.BinaryDecoder in = org.apache.avro.io.DecoderFactory.get().binaryDecoder(bytes, null);
            new org.apache.avro.generic.GenericDatumReader<Object>(schema, schema, org.apache.avro.generic.GenericData.get()).read(null, in);
            avro = "read";
        } catch (java.io.EOFException e) {
            avro = "truncated (" + e.getMessage() + ")";
        } catch (java.io.IOException | RuntimeException e) {
            avro = "corrupt (" + e + ")";
        }
        String plan;
        try {
            Projection projection = Projection.of(schema, "v");
            ProjectedRow row = new ProjectedRow(projection.size());
            row.reader.reset(bytes, 0, bytes.length);
            ProjectionPlan.compile(schema, projection).decode(row.reader, row);
            plan = "read";
        } catch (java.io.EOFException e) {
            plan = "truncated (" + e.getMessage() + ")";
        } catch (java.io.IOException | RuntimeException e) {
            plan = "corrupt (" + e + ")";
        }
        assertThat(avro).startsWith("truncated");
        assertThat(plan).as("avro: " + avro).startsWith("truncated");
    }
}
