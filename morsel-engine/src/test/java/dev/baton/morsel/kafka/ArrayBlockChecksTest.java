package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.Test;

/**
 * The checks Avro 1.12.2 makes at an array block's start, before its first item (issue 30, h/fix39), against the datum
 * reader {@code EventSerde} runs ({@code SpecificDatumReader}, fast reader): a block's count times the least encoded size
 * of the reader's item type against the bytes left, and the cap on items that take no bytes, counted over one value. Both
 * sides' outcomes put as EventSerde puts them (the value read, "truncated" or "corrupt").
 */
class ArrayBlockChecksTest {

    private static final Schema WRITER = parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "ints", "type": {"type": "array", "items": "int"}},
              {"name": "nulls", "type": {"type": "array", "items": "null"}},
              {"name": "m", "type": {"type": "map", "values": "long"}},
              {"name": "gone", "type": {"type": "array", "items": "long"}},
              {"name": "v", "type": "long"}]}""");

    /** ints promoted to float (4 bytes each to Avro's check, 1 on the wire), a map, and a writer-only array. */
    private static final Schema READER = parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "ints", "type": {"type": "array", "items": "float"}},
              {"name": "nulls", "type": {"type": "array", "items": "null"}},
              {"name": "m", "type": {"type": "map", "values": "long"}},
              {"name": "v", "type": "long"}]}""");

    /**
     * Blocks whose counts are right, or promise more items than were written (by a little or by a lot): the plan reads
     * what Avro reads and refuses for Avro's reason, whether Avro refuses at the block's start or at an item.
     */
    @Property(tries = 2000)
    void shouldCheckArrayBlocksBeforeTheirItemsAsAvroDoes(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Schema.Field f : WRITER.getFields().subList(0, WRITER.getFields().size() - 1)) {
            writeBlocks(body, f.schema(), random);
        }
        writeLong(body, 7);
        byte[] bytes = body.toByteArray();
        assertThat(plan(WRITER, READER, bytes)).as("body %s", java.util.Arrays.toString(bytes)).isEqualTo(avro(WRITER, READER, bytes));
    }

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

    /**
     * Avro counts items that take no bytes over one value, not per array: two writer-only arrays of nulls, each under
     * the cap and together over it, are refused (a corrupt body); each alone is read.
     */
    @Test
    void theCapOnItemsThatTakeNoBytesCountsOverTheWholeValue() {
        Schema writer = parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "n1", "type": {"type": "array", "items": "null"}},
                  {"name": "n2", "type": {"type": "array", "items": "null"}}, {"name": "v", "type": "long"}]}""");
        Schema reader = parse("""
                {"type": "record", "name": "R", "fields": [{"name": "v", "type": "long"}]}""");
        long half = AvroArrayLimits.MAX_ZERO_BYTE_ITEMS / 2 + 1;
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        ByteArrayOutputStream one = new ByteArrayOutputStream();
        writeLong(both, half);
        writeLong(both, 0);
        writeLong(both, half);
        writeLong(both, 0);
        writeLong(one, half);
        writeLong(one, 0);
        writeLong(one, 0);
        for (ByteArrayOutputStream b : java.util.List.of(both, one)) {
            writeLong(b, 7);
        }
        assertThat(avro(writer, reader, both.toByteArray())).isEqualTo("corrupt");
        assertThat(plan(writer, reader, both.toByteArray())).isEqualTo("corrupt");
        assertThat(avro(writer, reader, one.toByteArray())).isEqualTo("v=7");
        assertThat(plan(writer, reader, one.toByteArray())).isEqualTo("v=7");
    }

    /** Avro's limit as the plan reads it: its default, as Avro's SystemLimitException computes it. */
    @Test
    void theCapIsAvrosDefault() {
        long heapShare = Math.max(1, Math.max(1, Runtime.getRuntime().maxMemory() / 4) / 8);
        assertThat(AvroArrayLimits.MAX_ZERO_BYTE_ITEMS).isEqualTo(Math.min(heapShare, Integer.MAX_VALUE - 8));
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

    /** One to three blocks, plain or with their byte size; a block's count sometimes over its items, by up to 3 or by far. */
    private static void writeBlocks(ByteArrayOutputStream out, Schema s, SplittableRandom random) {
        int items = random.nextInt(5);
        while (items > 0) {
            int block = 1 + random.nextInt(items);
            items -= block;
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            for (int i = 0; i < block; i++) {
                if (s.getType() == Schema.Type.MAP) {
                    writeLong(content, 1);
                    content.write('k');
                }
                writeItem(content, s.getType() == Schema.Type.MAP ? s.getValueType() : s.getElementType(), random);
            }
            int odd = random.nextInt(6);
            long count = odd == 0 ? block + 1 + random.nextInt(3) : odd == 1 ? block + 1000 : block;
            if (random.nextBoolean()) {
                writeLong(out, count);
            } else {
                writeLong(out, -count);
                writeLong(out, content.size());
            }
            out.writeBytes(content.toByteArray());
        }
        writeLong(out, 0);
    }

    private static void writeItem(ByteArrayOutputStream out, Schema s, SplittableRandom random) {
        switch (s.getType()) {
            case INT, LONG -> writeLong(out, random.nextInt(4) == 0 ? random.nextInt() : random.nextInt(-64, 64));
            case NULL -> { }
            default -> throw new IllegalArgumentException(s.toString());
        }
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        long n = (v << 1) ^ (v >> 63);
        while ((n & ~0x7fL) != 0) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
    }

    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }
}
