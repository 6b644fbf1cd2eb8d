package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.baton.events.HistoryEvent;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;

/**
 * The compiled plan reads what Avro's own {@code GenericDatumReader} reads when it resolves a writer schema against
 * the reader's: type promotions (int to long and double, long and float to double, string and bytes both ways), enum
 * symbols by name (an unknown one to the reader's default), unions by branch (and a plain writer type into a reader
 * union), defaults for fields the writer lacks (nested records' too), and skips of every kind (fixed, arrays, maps,
 * a record that contains itself). Damaged values are read or refused as Avro's reader reads or refuses them,
 * for the reason EventSerde gives. Replay a failure with the seed jqwik prints.
 */
class ProjectionPlanProperties {

    /** An earlier writer: narrower types, an enum with a symbol the reader lacks, fields the reader dropped. */
    private static final Schema WRITER = new Schema.Parser().parse("""
            {"type": "record", "name": "Event", "namespace": "t", "fields": [
              {"name": "count", "type": "int"},
              {"name": "total", "type": "long"},
              {"name": "ratio", "type": "float"},
              {"name": "small", "type": "int"},
              {"name": "name", "type": "string"},
              {"name": "blob", "type": "bytes"},
              {"name": "flag", "type": "boolean"},
              {"name": "tag", "type": {"type": "fixed", "name": "Tag", "size": 3}},
              {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE", "MAUVE"]}},
              {"name": "labels", "type": {"type": "map", "values": "long"}},
              {"name": "choice", "type": ["int", "null"]},
              {"name": "either", "type": ["null", "int", "string", {"type": "array", "items": "string"}]},
              {"name": "plain", "type": "int"},
              {"name": "maybe", "type": ["null", "string"]},
              {"name": "scores", "type": {"type": "array", "items": "double"}},
              {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "a", "type": "string"}, {"name": "gone", "type": "long"}, {"name": "b", "type": ["null", "long"]}]}},
              {"name": "chain", "type": ["null", {"type": "record", "name": "Link", "fields": [
                {"name": "v", "type": "string"}, {"name": "next", "type": ["null", "Link"]}]}]},
              {"name": "last", "type": "double"}
            ]}""");

    /** A later reader: promoted types, reordered enum with a default, new fields with defaults, dropped fields. */
    private static final Schema READER = new Schema.Parser().parse("""
            {"type": "record", "name": "Event", "namespace": "t", "fields": [
              {"name": "last", "type": "double"},
              {"name": "count", "type": "long"},
              {"name": "total", "type": "double"},
              {"name": "ratio", "type": "double"},
              {"name": "small", "type": "double"},
              {"name": "name", "type": "bytes"},
              {"name": "blob", "type": "string"},
              {"name": "flag", "type": "boolean"},
              {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["BLUE", "GREEN", "RED", "OTHER"], "default": "OTHER"}},
              {"name": "choice", "type": ["null", "long"]},
              {"name": "plain", "type": ["null", "long"]},
              {"name": "maybe", "type": ["null", "string"]},
              {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "b", "type": ["null", "long"]}, {"name": "a", "type": "string"},
                {"name": "added", "type": "int", "default": 5}]}},
              {"name": "region", "type": "string", "default": "eu"},
              {"name": "retries", "type": "long", "default": 3},
              {"name": "weight", "type": "double", "default": 1.5},
              {"name": "on", "type": "boolean", "default": true},
              {"name": "shade", "type": {"type": "enum", "name": "Shade", "symbols": ["LIGHT", "DARK"]}, "default": "DARK"},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "origin", "type": {"type": "record", "name": "Origin", "fields": [
                {"name": "host", "type": "string"}, {"name": "port", "type": "int"}]}, "default": {"host": "localhost", "port": 80}}
            ]}""");

    private static final List<String> PATHS = List.of("last", "count", "total", "ratio", "small", "name", "blob", "flag", "color", "choice",
            "plain", "maybe", "inner.b", "inner.a", "inner.added", "region", "retries", "weight", "on", "shade", "note", "origin.host", "origin.port");

    @Property(tries = 500)
    void shouldReadAnEvolvedWriterAsAvrosResolvingReaderDoes(@ForAll long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> paths = new ArrayList<>();
        for (String p : PATHS) {
            if (random.nextInt(4) != 0) {
                paths.add(p);
            }
        }
        byte[] body = encode(WRITER, randomValue(WRITER, random));
        GenericRecord expected = new GenericDatumReader<GenericRecord>(WRITER, READER).read(null, DecoderFactory.get().binaryDecoder(body, null));
        Projection projection = Projection.of(READER, paths.toArray(String[]::new));
        ProjectedRow row = new ProjectedRow(projection.size());
        Arrays.fill(row.nulls, true); // a plan writes every slot's null flag: nothing stale survives from a previous value
        WireReader in = row.reader;
        in.reset(body, 0, body.length);
        ProjectionPlan.compile(WRITER, projection).decode(in, row);
        assertThat(in.isEnd()).isTrue();
        for (int slot = 0; slot < paths.size(); slot++) {
            assertThat(projected(projection, row, slot)).as(paths.get(slot)).isEqualTo(expectedValue(paths.get(slot), expected));
        }
    }

    /**
     * A value with a byte flipped or cut short: the plan reads what Avro's reader (the one EventSerde runs) reads, or
     * refuses it for the reason EventSerde gives Avro's refusal (truncated, corrupt). Fields the reader lacks are
     * skipped as Avro skips them (a string's negative length skips nothing, an enum's index is not checked); fields it
     * has are read, so the same damage there is refused.
     */
    @Property(tries = 1000)
    void shouldRefuseDamagedValuesAsEventSerdeRefusesAvrosRefusals(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] body = encode(WRITER, randomValue(WRITER, random));
        boolean truncate = random.nextBoolean();
        byte[] damaged = truncate ? Arrays.copyOf(body, random.nextInt(body.length)) : body.clone();
        if (!truncate) {
            damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));
        }
        Projection projection = Projection.of(READER, PATHS.toArray(String[]::new));
        ProjectionPlan plan = ProjectionPlan.compile(WRITER, projection);
        ProjectedRow row = new ProjectedRow(projection.size());
        String now = outcome(damaged, row, () -> plan.decode(row.reader, row));
        GenericRecord read = null;
        String avro;
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(damaged, null);
            read = new GenericDatumReader<GenericRecord>(WRITER, READER).read(null, in);
            avro = in.isEnd() ? "read" : "corrupt (trailing bytes)";
        } catch (EOFException e) {
            avro = "truncated";
        } catch (IOException | RuntimeException e) {
            avro = "corrupt: " + e;
        }
        assertThat(now).as("Avro: %s, body %s", avro, Arrays.toString(damaged)).isEqualTo(avro.startsWith("corrupt: ") ? "corrupt" : avro);
        if (avro.equals("read")) {
            for (int slot = 0; slot < PATHS.size(); slot++) {
                assertThat(projected(projection, row, slot)).as(PATHS.get(slot)).isEqualTo(expectedValue(PATHS.get(slot), read));
            }
        }
    }

    @Property(tries = 300)
    void shouldReadHistoryEventsAsTheStepPlanDid(@ForAll long seed) {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://projection-plan-properties", Map.of());
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] value = serde.encode("baton.history", ProjectedReaderProperties.randomEvent(random));
        Projection projection = Projection.of(HistoryEvent.getClassSchema(), DecodeHarness.HISTORY_PATHS);
        ProjectedRow a = new ProjectedRow(projection.size());
        ProjectedRow b = new ProjectedRow(projection.size());
        a.reader.reset(value, 5, value.length - 5);
        b.reader.reset(value, 5, value.length - 5);
        try {
            ProjectionPlan.compile(HistoryEvent.getClassSchema(), projection).decode(a.reader, a);
            StepPlan.compile(HistoryEvent.getClassSchema(), projection).decode(b.reader, b);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(a.nulls).isEqualTo(b.nulls);
        assertThat(a.longs).isEqualTo(b.longs);
        for (int slot = 0; slot < projection.size(); slot++) {
            if (a.stringArray(slot) != null || b.stringArray(slot) != null) { // a string slot both have read
                assertThat((Object) a.utf8(slot)).as(projection.paths().get(slot)).isEqualTo(b.utf8(slot));
            }
        }
    }

    @org.junit.jupiter.api.Test
    void shouldShareOnePlanPerWriterAndProjectionButNotAcrossAliases() {
        Projection projection = Projection.of(READER, "count", "name");
        assertThat(ProjectionPlan.compile(WRITER, projection)).isSameAs(ProjectionPlan.compile(WRITER, Projection.of(READER, "count", "name")));
        // a reader whose "count" also answers to "total": Schema.equals would call it the same reader, but it reads another field
        Schema aliased = new Schema.Parser().parse(READER.toString().replace("{\"name\":\"count\",\"type\":\"long\"}",
                "{\"name\":\"count\",\"type\":\"long\",\"aliases\":[\"tally\"]}"));
        assertThat(aliased.toString()).contains("tally");
        assertThat(ProjectionPlan.compile(WRITER, Projection.of(aliased, "count", "name"))).isNotSameAs(ProjectionPlan.compile(WRITER, projection));
    }

    @FunctionalInterface
    private interface Decode {
        void run() throws IOException;
    }

    /** What {@link ProjectedReader} would make of a decode: the reason it would name, or "read". */
    private static String outcome(byte[] body, ProjectedRow row, Decode decode) {
        row.reader.reset(body, 0, body.length);
        try {
            decode.run();
            return row.reader.isEnd() ? "read" : "corrupt (trailing bytes)";
        } catch (EOFException e) {
            return "truncated";
        } catch (ProjectionPlan.Mismatch | StepPlan.Mismatch e) {
            return "incompatible: " + e.getMessage();
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException | IllegalArgumentException
                 | ClassCastException | UnsupportedOperationException e) {
            return "corrupt";
        }
    }

    private static Object projected(Projection projection, ProjectedRow row, int slot) {
        if (row.isNull(slot)) {
            return null;
        }
        return switch (projection.kind(slot)) {
            case LONG -> READER_BOOLEANS.contains(projection.paths().get(slot)) ? (Object) row.getBoolean(slot) : (Object) row.getLong(slot);
            case DOUBLE -> row.getDouble(slot);
            case STRING -> row.string(slot);
            case ENUM -> projection.paths().get(slot).equals("color") ? READER.getField("color").schema().getEnumSymbols().get(row.getInt(slot))
                    : READER.getField("shade").schema().getEnumSymbols().get(row.getInt(slot));
        };
    }

    private static final List<String> READER_BOOLEANS = List.of("flag", "on");

    /** Avro's value at {@code path}, in the projected row's terms: whole numbers as long, floats as double, text as String. */
    private static Object expectedValue(String path, GenericRecord record) {
        Object v = record;
        for (String part : path.split("\\.")) {
            v = ((GenericRecord) v).get(part);
        }
        if (v == null) {
            return null;
        }
        if (v instanceof Integer i) {
            return (long) i;
        }
        if (v instanceof Float f) {
            return (double) f;
        }
        if (v instanceof Utf8 || v instanceof String) {
            return v.toString();
        }
        if (v instanceof ByteBuffer b) {
            byte[] bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (v instanceof GenericData.EnumSymbol e) {
            return e.toString();
        }
        return v;
    }

    private static byte[] encode(Schema schema, Object value) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<Object>(schema).write(value, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Object randomValue(Schema s, SplittableRandom r) {
        return switch (s.getType()) {
            case RECORD -> {
                GenericData.Record rec = new GenericData.Record(s);
                s.getFields().forEach(f -> rec.put(f.pos(), randomValue(f.schema(), r)));
                yield rec;
            }
            // a record that contains itself ends within a few links
            case UNION -> randomValue(s.getTypes().get(r.nextInt(3) == 0 ? 0 : r.nextInt(s.getTypes().size())), r);
            case ENUM -> new GenericData.EnumSymbol(s, s.getEnumSymbols().get(r.nextInt(s.getEnumSymbols().size())));
            case STRING -> text(r);
            case BYTES -> ByteBuffer.wrap(text(r).getBytes(StandardCharsets.UTF_8));
            case FIXED -> new GenericData.Fixed(s, new byte[] {(byte) r.nextInt(), (byte) r.nextInt(), (byte) r.nextInt()});
            case INT -> r.nextInt(4) == 0 ? r.nextInt(-64, 64) : r.nextInt();
            case LONG -> r.nextInt(4) == 0 ? r.nextLong(-64, 64) : r.nextLong();
            case FLOAT -> (float) r.nextDouble(-1e6, 1e6);
            case DOUBLE -> r.nextDouble();
            case BOOLEAN -> r.nextBoolean();
            case NULL -> null;
            case MAP -> {
                Map<String, Object> m = new java.util.HashMap<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    m.put(text(r), randomValue(s.getValueType(), r));
                }
                yield m;
            }
            case ARRAY -> {
                List<Object> a = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    a.add(randomValue(s.getElementType(), r));
                }
                yield a;
            }
        };
    }

    private static String text(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(0, 20);
        for (int i = 0; i < n; i++) {
            s.appendCodePoint(r.nextInt(8) == 0 ? 0x80 + r.nextInt(0x7ff) : 'a' + r.nextInt(26));
        }
        return s.toString();
    }
}
