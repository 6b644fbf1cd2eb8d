package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.SchemaRegistry;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * The compiled plan against Avro's own resolving reader ({@code GenericDatumReader} with the writer and the reader
 * schema) where the two once parted (issue 30, the adversary's open defects): which writer field a reader field reads
 * when the reader has aliases, and how an array's or map's blocks are read when the writer gave their byte size,
 * right or wrong. Both sides' outcomes are put the way {@code EventSerde} puts them (the values read, "truncated" or
 * "corrupt"). Replay a failure with the seed jqwik prints.
 */
class AvroResolutionProperties {

    private static final List<String> NAMES = List.of("a", "b", "x", "y");

    /**
     * Writer and reader fields drawn from four names, every reader field with a default and up to two aliases from
     * the same names (an alias may be another reader field's name, or a writer field's the reader also has): Avro
     * renames the writer by the aliases first, so the plan must read the same field, or refuse where Avro does.
     */
    @Property(tries = 1000)
    void shouldChooseTheWriterFieldAvroChoosesWhenTheReaderHasAliases(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> writerNames = draw(random);
        List<String> readerNames = draw(random);
        StringBuilder w = new StringBuilder("{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int i = 0; i < writerNames.size(); i++) {
            w.append(i == 0 ? "" : ",").append("{\"name\":\"").append(writerNames.get(i)).append("\",\"type\":\"long\"}");
            writeLong(body, 100 + 10 * NAMES.indexOf(writerNames.get(i)) + random.nextInt(10));
        }
        StringBuilder r = new StringBuilder("{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
        for (int i = 0; i < readerNames.size(); i++) {
            List<String> aliases = new ArrayList<>();
            for (String n : NAMES) {
                if (!n.equals(readerNames.get(i)) && random.nextInt(4) == 0 && aliases.size() < 2) {
                    aliases.add("\"" + n + "\"");
                }
            }
            r.append(i == 0 ? "" : ",").append("{\"name\":\"").append(readerNames.get(i)).append("\",\"type\":\"long\",\"default\":")
                    .append(-1 - i).append(",\"aliases\":").append(aliases).append("}");
        }
        Schema writer = new Schema.Parser().parse(w.append("]}").toString());
        Schema reader = new Schema.Parser().parse(r.append("]}").toString());
        byte[] bytes = body.toByteArray();
        String avro;
        try {
            GenericRecord read = new GenericDatumReader<GenericRecord>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(bytes, null));
            avro = readerNames.stream().map(n -> n + "=" + read.get(n)).toList().toString();
        } catch (IOException | RuntimeException e) {
            avro = "refused";
        }
        String plan;
        try {
            Projection projection = Projection.of(reader, readerNames.toArray(String[]::new));
            ProjectedRow row = new ProjectedRow(projection.size());
            row.reader.reset(bytes, 0, bytes.length);
            ProjectionPlan.compile(writer, projection).decode(row.reader, row);
            plan = readerNames.stream().map(n -> n + "=" + row.getLong(projection.slot(n))).toList().toString();
        } catch (IOException | RuntimeException e) {
            plan = "refused";
        }
        assertThat(plan).as("writer %s, reader %s", writer, reader).isEqualTo(avro);
    }

    /** Arrays and maps the reader has (read item by item) and ones it lacks (skipped by a block's byte size). */
    private static final Schema BLOCKS_WRITER = new Schema.Parser().parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "pre", "type": "long"},
              {"name": "arr", "type": {"type": "array", "items": "long"}},
              {"name": "strs", "type": {"type": "array", "items": "string"}},
              {"name": "m", "type": {"type": "map", "values": "long"}},
              {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
                {"name": "a", "type": "long"}, {"name": "s", "type": "string"}]}}},
              {"name": "gone", "type": {"type": "array", "items": "long"}},
              {"name": "goneMap", "type": {"type": "map", "values": "string"}},
              {"name": "v", "type": "long"}
            ]}""");

    private static final Schema BLOCKS_READER = new Schema.Parser().parse("""
            {"type": "record", "name": "R", "fields": [
              {"name": "pre", "type": "long"},
              {"name": "arr", "type": {"type": "array", "items": "long"}},
              {"name": "strs", "type": {"type": "array", "items": "string"}},
              {"name": "m", "type": {"type": "map", "values": "long"}},
              {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
                {"name": "a", "type": "long"}]}}},
              {"name": "v", "type": "long"}
            ]}""");

    /**
     * Values whose blocks are written as a blocking encoder writes them (a negative count, then the block's byte size)
     * or plainly, the size sometimes wrong by a few bytes or negative: the plan reads what Avro reads, or refuses for
     * the reason Avro's refusal gets from EventSerde.
     */
    @Property(tries = 2000)
    void shouldReadBlocksWithByteSizesAsAvroDoes(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeLong(body, random.nextLong(-1000, 1000));
        for (Schema.Field f : BLOCKS_WRITER.getFields().subList(1, BLOCKS_WRITER.getFields().size() - 1)) {
            writeBlocks(body, f.schema(), random);
        }
        writeLong(body, random.nextLong(-1000, 1000));
        byte[] bytes = body.toByteArray();
        String avro;
        String why = "";
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
            GenericRecord read = new GenericDatumReader<GenericRecord>(BLOCKS_WRITER, BLOCKS_READER).read(null, in);
            avro = in.isEnd() ? "pre=" + read.get("pre") + " v=" + read.get("v") : "corrupt";
        } catch (EOFException e) {
            avro = "truncated";
            why = "avro: " + e;
        } catch (IOException | RuntimeException e) {
            avro = "corrupt";
            why = "avro: " + e;
        }
        String plan;
        try {
            Projection projection = Projection.of(BLOCKS_READER, "pre", "v");
            ProjectedRow row = new ProjectedRow(projection.size());
            row.reader.reset(bytes, 0, bytes.length);
            ProjectionPlan.compile(BLOCKS_WRITER, projection).decode(row.reader, row);
            plan = row.reader.isEnd() ? "pre=" + row.getLong(0) + " v=" + row.getLong(1) : "corrupt";
        } catch (EOFException e) {
            plan = "truncated";
            why += ", plan: " + e;
        } catch (IOException | RuntimeException e) {
            plan = "corrupt";
            why += ", plan: " + e;
        }
        assertThat(plan).as("body %s (%s)", java.util.Arrays.toString(bytes), why).isEqualTo(avro);
    }

    /**
     * What Avro 1.12 does with an array block whose byte size is wrong (count -1, size 100, one item), by each of its
     * readers: the datum reader EventSerde runs (fast, the default), the same without the fast reader (a ResolvingDecoder),
     * and the plan. A reader that has the array reads its item and ignores the size; one that lacks it skips the block by
     * its size and runs off the value's end.
     */
    @Test
    void avroReadsAReaderArrayItemByItemAndSkipsAWriterOnlyOneByItsBlockSize() {
        Schema withArray = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "arr", "type": {"type": "array", "items": "long"}}, {"name": "v", "type": "long"}]}""");
        Schema withoutArray = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "v", "type": "long"}]}""");
        byte[] body = {1, (byte) 200, 1, 2, 0, 14}; // count -1, size 100, item 1, end, v = 7
        GenericData slow = new GenericData();
        slow.setFastReaderEnabled(false);
        for (GenericData data : List.of(GenericData.get(), slow)) {
            assertThat(avroOutcome(withArray, withArray, data, body)).as("fast reader: " + data.isFastReaderEnabled()).isEqualTo("v=7");
            assertThat(avroOutcome(withArray, withoutArray, data, body)).as("fast reader: " + data.isFastReaderEnabled()).isEqualTo("truncated");
        }
        assertThat(planOutcome(withArray, withArray, body)).isEqualTo("v=7");
        assertThat(planOutcome(withArray, withoutArray, body)).isEqualTo("truncated");
        byte[] rightSize = {1, 2, 2, 0, 14}; // count -1, size 1: both read v = 7
        assertThat(avroOutcome(withArray, withoutArray, GenericData.get(), rightSize)).isEqualTo("v=7");
        assertThat(planOutcome(withArray, withoutArray, rightSize)).isEqualTo("v=7");
    }

    /**
     * A writer with fields a and b read by a reader whose a also answers to b: Avro's datum reader renames b to a and
     * refuses every value (a duplicate field), and Avro's compatibility checker, which EventSerde and the projected
     * reader both ask first, throws (a field matching two). Both readers now call the writer's schema incompatible
     * (SchemaEvolution), where Avro's exception escaped them before.
     */
    @Test
    void aRenameAvroRefusesIsAnIncompatibleSchemaNotAnEscapedException() {
        Schema writer = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "long"}]}""");
        Schema reader = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "a", "type": "long", "aliases": ["b"]}]}""");
        byte[] body = {2, 4};
        assertThatThrownBy(() -> new SpecificDatumReader<Object>(writer, reader).read(null, DecoderFactory.get().binaryDecoder(body, null)))
                .isInstanceOf(AvroRuntimeException.class);
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://avro-resolution-duplicate", Map.of());
        int id = registry.register("t-value", writer);
        byte[] framed = ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
        ProjectedReader projected = new ProjectedReader(registry, Projection.of(reader, "a"));
        assertThatThrownBy(() -> projected.decode("t", framed, projected.newRow()))
                .isInstanceOfSatisfying(UndecodableRecordException.class, e -> assertThat(e.reason()).isEqualTo(UndecodableRecordException.Reason.INCOMPATIBLE_SCHEMA));
    }

    private static String avroOutcome(Schema writer, Schema reader, GenericData data, byte[] body) {
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(body, null);
            GenericRecord read = new GenericDatumReader<GenericRecord>(writer, reader, data).read(null, in);
            return in.isEnd() ? "v=" + read.get("v") : "corrupt";
        } catch (EOFException e) {
            return "truncated";
        } catch (IOException | RuntimeException e) {
            return "corrupt";
        }
    }

    private static String planOutcome(Schema writer, Schema reader, byte[] body) {
        try {
            Projection projection = Projection.of(reader, "v");
            ProjectedRow row = new ProjectedRow(1);
            row.reader.reset(body, 0, body.length);
            ProjectionPlan.compile(writer, projection).decode(row.reader, row);
            return row.reader.isEnd() ? "v=" + row.getLong(0) : "corrupt";
        } catch (EOFException e) {
            return "truncated";
        } catch (IOException | RuntimeException e) {
            return "corrupt";
        }
    }

    /** Up to three distinct names of {@link #NAMES}, in a random order. */
    private static List<String> draw(SplittableRandom random) {
        List<String> pool = new ArrayList<>(NAMES);
        List<String> out = new ArrayList<>();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            out.add(pool.remove(random.nextInt(pool.size())));
        }
        return out;
    }

    /** An array's or map's items in one to three blocks, each plain or with a byte size (right, off by a little, or negative). */
    private static void writeBlocks(ByteArrayOutputStream out, Schema s, SplittableRandom random) {
        int items = random.nextInt(5);
        while (items > 0) {
            int block = 1 + random.nextInt(items);
            items -= block;
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            for (int i = 0; i < block; i++) {
                if (s.getType() == Schema.Type.MAP) {
                    writeString(content, "k" + random.nextInt(100));
                }
                writeItem(content, s.getType() == Schema.Type.MAP ? s.getValueType() : s.getElementType(), random);
            }
            if (random.nextBoolean()) {
                writeLong(out, block);
            } else {
                writeLong(out, -block);
                int size = content.size();
                int odd = random.nextInt(6);
                writeLong(out, odd == 0 ? size + 1 + random.nextInt(3) : odd == 1 ? size - 1 - random.nextInt(3) : size);
            }
            out.writeBytes(content.toByteArray());
        }
        writeLong(out, 0);
    }

    private static void writeItem(ByteArrayOutputStream out, Schema s, SplittableRandom random) {
        switch (s.getType()) {
            case LONG -> writeLong(out, random.nextInt(4) == 0 ? random.nextLong() : random.nextLong(-64, 64));
            case STRING -> writeString(out, "s".repeat(random.nextInt(4)));
            case RECORD -> s.getFields().forEach(f -> writeItem(out, f.schema(), random));
            default -> throw new IllegalArgumentException(s.toString());
        }
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeLong(out, b.length);
        out.writeBytes(b);
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        long n = (v << 1) ^ (v >> 63);
        while ((n & ~0x7fL) != 0) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
    }
}
