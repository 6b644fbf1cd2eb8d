package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.Test;

/**
 * The check Avro 1.12.2 makes at an array block's start, before its first item (issue 30, h/fix39), against the datum
 * reader {@code EventSerde} runs ({@code SpecificDatumReader}, fast reader): a block's count times the least encoded size
 * of the reader's item type against the bytes left. Both sides' outcomes put as EventSerde puts them (the value read,
 * "truncated" or "corrupt").
 */
class ArrayBlockChecksTest {

    /** A promoted item type counts the reader's size: Avro refuses three ints read as floats when fewer than 12 bytes are left. */
    @Test
    void aPromotedItemTypeIsCheckedByTheReadersSizeAsAvroChecksIt() {
        Schema writer = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": "int"}}, {"name": "v", "type": "long"}]}""");
        Schema reader = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": "float"}}, {"name": "v", "type": "long"}]}""");
        byte[] body = {6, 2, 4, 6, 0, 14}; // [1, 2, 3], v = 7
        assertThat(avro(writer, reader, body)).isEqualTo("truncated");
        assertThat(plan(writer, reader, body)).isEqualTo("truncated");
        assertThat(avro(writer, writer, body)).isEqualTo("v=7");
        assertThat(plan(writer, writer, body)).isEqualTo("v=7");
    }

    /** The datum reader EventSerde runs: specific data, fast reader (Avro's default). */
    private static String avro(Schema writer, Schema reader, byte[] body) {
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(body, null);
            assertThat(SpecificData.get().isFastReaderEnabled()).isTrue();
            GenericRecord read = (GenericRecord) new SpecificDatumReader<Object>(writer, reader, SpecificData.get()).read(null, in);
            return in.isEnd() ? "v=" + read.get("v") : "corrupt";
        } catch (EOFException e) {
            return "truncated";
        } catch (IOException | RuntimeException e) {
            return "corrupt";
        }
    }

    private static String plan(Schema writer, Schema reader, byte[] body) {
        try {
            Projection projection = Projection.of(reader, "v");
            ProjectedRow row = new ProjectedRow(projection.size());
            row.reader.reset(body, 0, body.length);
            ProjectionPlan.compile(writer, projection).decode(row.reader, row);
            return row.reader.isEnd() ? "v=" + row.getLong(0) : "corrupt";
        } catch (EOFException e) {
            return "truncated";
        } catch (IOException | RuntimeException e) {
            return "corrupt";
        }
    }

    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }
}
