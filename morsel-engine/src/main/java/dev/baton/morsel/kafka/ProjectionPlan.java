package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.PlanSteps.step;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;

/**
 * A {@link Projection} compiled against one writer schema: the writer's fields in the order they
 * were written, renamed by the reader's aliases and then matched by name as Avro's resolving reader
 * matches them, each either read into its slot (resolved to the reader's type by Avro's rules:
 * int to long, float or double; long to float or double; string and bytes both ways; enum symbols
 * by name, unknown ones to the reader's default; unions by branch) or skipped with the
 * {@link WireReader}'s skips. Reader fields the writer lacks take their defaults. Nothing is allocated per
 * value: no record object, no string unless its slot is read.
 *
 * <p>The steps ({@link PlanSteps}) are composed into one method handle, a union into a table switch on its
 * branch index, and the handle is made the constant of a hidden class of its own ({@link PlanTemplate}), so the
 * JIT compiles each plan into straight-line code for its writer schema. Why: a plan of one object per field
 * made a call through an interface with a dozen implementations per writer field, and an int code run by one
 * switch loop did no better; the calls and the switch's jump were about half of the decode's CPU
 * (docs/decisions.md, "The projected decode about twice as cheap").
 *
 * <p>Immutable and thread-safe once built; decoding writes only into the caller's row.
 */
final class ProjectionPlan {

    /** A plan's compiled body: the hidden class's one method. */
    interface Decoder {
        void decode(WireReader in, ProjectedRow row) throws IOException;
    }

    /** A writer value the reader cannot take (a union branch or enum symbol without a match); names both. */
    static final class Mismatch extends RuntimeException {
        Mismatch(String message) {
            super(message);
        }
    }

    private static final MethodHandle NOTHING = MethodHandles.empty(PlanSteps.STEP);
    private static final MethodHandle UNION_INDEX = PlanSteps.unionIndex();
    private static final MethodHandle READ_INT = step("readInt", int.class);
    private static final MethodHandle READ_LONG = step("readLong", int.class);
    private static final MethodHandle READ_BOOLEAN = step("readBoolean", int.class);
    private static final MethodHandle INT_TO_DOUBLE = step("intToDouble", int.class);
    private static final MethodHandle LONG_TO_DOUBLE = step("longToDouble", int.class);
    private static final MethodHandle INT_TO_FLOAT = step("intToFloat", int.class);
    private static final MethodHandle LONG_TO_FLOAT = step("longToFloat", int.class);
    private static final MethodHandle FLOAT_TO_DOUBLE = step("floatToDouble", int.class);
    private static final MethodHandle READ_DOUBLE = step("readDouble", int.class);
    private static final MethodHandle READ_STRING = step("readString", int.class);
    private static final MethodHandle READ_ENUM = step("readEnum", EnumMapping.class, int.class);
    private static final MethodHandle SKIP_INT = step("skipInt");
    private static final MethodHandle SKIP_ENUM = step("skipEnum", int.class);
    private static final MethodHandle SKIP_LONG = step("skipLong");
    private static final MethodHandle SKIP_BOOLEAN = step("skipBoolean");
    private static final MethodHandle SKIP_FIXED = step("skipFixed", int.class);
    private static final MethodHandle SKIP_STRING = step("skipString");
    private static final MethodHandle SKIP_UNREAD = step("skipUnread");
    private static final MethodHandle BAD_UNION_INDEX = step("badUnionIndex", int.class, int.class);
    private static final MethodHandle SET_NULL = step("setNull", int.class);
    private static final MethodHandle SET_NULLS = step("setNulls", int[].class);
    private static final MethodHandle FAIL = step("fail", String.class);
    private static final MethodHandle DEFAULT_LONG = step("defaultLong", long.class, int.class);
    private static final MethodHandle DEFAULT_DOUBLE = step("defaultDouble", double.class, int.class);
    private static final MethodHandle DEFAULT_STRING = step("defaultString", byte[].class, int.class);
    private static final MethodHandle RECURSE = step("recurse", MethodHandle[].class);
    private static final MethodHandle BLOCKS = step("blocks", MethodHandle.class, boolean.class);
    private static final MethodHandle ITEMS = step("items", MethodHandle.class);
    private static final MethodHandle ARRAY_ITEMS = step("arrayItems", MethodHandle.class, int.class);
    private static final MethodHandle CHECK_ENUM = step("checkEnum", EnumMapping.class);

    private static final byte[] TEMPLATE = templateBytes();
    private static final int MAX_COMPILED = 1024;
    private static final Map<List<String>, ProjectionPlan> COMPILED = new ConcurrentHashMap<>();

    private final Decoder decoder;

    private ProjectionPlan(Decoder decoder) {
        this.decoder = decoder;
    }

    /**
     * The plan of {@code writer} read as {@code projection}: compiled once per JVM and then shared. Each compile defines a
     * hidden class the JIT compiles afresh, and a query makes its own readers (a {@code HistoryLog} per run), so without
     * sharing every run would pay the class and the JIT's warm-up again.
     */
    static ProjectionPlan compile(Schema writer, Projection projection) {
        // the schemas' JSON, not the schemas: Schema.equals ignores field aliases, which choose the writer's fields
        List<String> key = List.of(writer.toString(), projection.reader().toString(), String.join(",", projection.paths()));
        ProjectionPlan plan = COMPILED.get(key);
        if (plan == null) {
            plan = build(writer, projection);
            if (COMPILED.size() < MAX_COMPILED) { // a bound against a process that meets schemas without end
                ProjectionPlan raced = COMPILED.putIfAbsent(key, plan);
                plan = raced == null ? plan : raced;
            }
        }
        return plan;
    }

    private static ProjectionPlan build(Schema writer, Projection projection) {
        Schema renamed;
        try {
            // Avro renames the writer's fields and named types by the reader's aliases, then matches by name alone: an
            // alias outranks a writer field of the reader field's name. Its datum readers (EventSerde's, generic, fast
            // or not) rename twice, once themselves and once in the ResolvingDecoder they make, which a renamed field
            // whose new name is another reader field's alias shows; the plan reads what EventSerde reads.
            renamed = Schema.applyAliases(Schema.applyAliases(writer, projection.reader()), projection.reader());
        } catch (AvroRuntimeException e) {
            // Two writer fields renamed alike: Avro refuses every value. Behind ProjectedReader the compatibility check
            // refuses such a writer first (SchemaEvolution); a plan compiled without it refuses as Avro does.
            String why = e.getMessage();
            return new ProjectionPlan((in, row) -> {
                throw new AvroRuntimeException(why);
            });
        }
        Compiler c = new Compiler(projection);
        List<MethodHandle> fields = new ArrayList<>();
        c.record(renamed, projection.reader(), projection.root(), fields);
        List<MethodHandle> all = new ArrayList<>(c.defaults); // found while compiling the fields, run before them
        all.addAll(fields);
        return new ProjectionPlan(define(sequence(all)));
    }

    void decode(WireReader in, ProjectedRow row) throws IOException {
        decoder.decode(in, row);
    }

    private static Decoder define(MethodHandle body) {
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClassWithClassData(TEMPLATE, body, true);
            return (Decoder) hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot define a projection plan's class: " + t, t);
        }
    }

    private static byte[] templateBytes() {
        try (InputStream in = PlanTemplate.class.getResourceAsStream(PlanTemplate.class.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IllegalStateException("PlanTemplate.class is not on the class path beside ProjectionPlan");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Steps run one after the other, composed as a balanced tree (a chain as deep as a record is long would be needless nesting). */
    private static MethodHandle sequence(List<MethodHandle> steps) {
        if (steps.isEmpty()) {
            return NOTHING;
        }
        if (steps.size() == 1) {
            return steps.get(0);
        }
        int half = steps.size() / 2;
        return MethodHandles.foldArguments(sequence(steps.subList(half, steps.size())), sequence(steps.subList(0, half)));
    }

    /** A writer enum's indexes as the reader's ordinals (-1: a symbol the reader lacks and has no default for). */
    record EnumMapping(int[] ordinals, List<String> symbols, String writer, String reader) {
        long ordinal(int index) {
            if (index < 0 || index >= ordinals.length) {
                // a damaged body, not a schema the reader cannot take: refused as corrupt, as EventSerde refuses it
                throw new IllegalArgumentException("enum index " + index + " outside the writer's " + ordinals.length + " symbols of " + writer);
            }
            if (ordinals[index] < 0) {
                throw new Mismatch("enum symbol " + symbols.get(index) + " is unknown to the reader's " + reader + ", which has no default");
            }
            return ordinals[index];
        }
    }

    /** Builds the steps; one instance per compile. */
    private static final class Compiler {
        private final Projection projection;
        /** The defaults of reader fields the writer lacks. */
        final List<MethodHandle> defaults = new ArrayList<>();
        /** The records being skipped, innermost last, each with the holder of its body for a record met again inside itself. */
        private final List<Schema> skipping = new ArrayList<>();
        /** The reader's type of each record being skipped (null: the reader lacks it). */
        private final List<Schema> skippingReaders = new ArrayList<>();
        private final List<MethodHandle[]> skippingBodies = new ArrayList<>();

        Compiler(Projection projection) {
            this.projection = projection;
        }

        /** {@code writer} with the reader's aliases applied: its fields match the reader's by name. */
        void record(Schema writer, Schema reader, Projection.Node node, List<MethodHandle> out) {
            Set<String> matched = new HashSet<>();
            for (Schema.Field wf : writer.getFields()) {
                Schema.Field rf = reader.getField(wf.name());
                Projection.Node child = rf == null ? null : node.children.get(rf.name());
                if (child == null) {
                    out.add(skip(wf.schema(), rf == null ? null : rf.schema()));
                } else {
                    matched.add(rf.name());
                    out.add(field(wf.schema(), rf.schema(), child));
                }
            }
            for (Map.Entry<String, Projection.Node> e : node.children.entrySet()) {
                if (!matched.contains(e.getKey())) {
                    Schema.Field rf = reader.getField(e.getKey());
                    defaultOf(rf.hasDefaultValue() ? rf.defaultVal() : null, e.getValue());
                }
            }
        }

        /** A projected field: a leaf read into its slot, or a record entered. */
        private MethodHandle field(Schema w, Schema r, Projection.Node node) {
            if (w.getType() == Schema.Type.UNION) {
                return union(w.getTypes().stream().map(b -> field(b, r, node)).toList());
            }
            if (w.getType() == Schema.Type.NULL) {
                if (!nullable(r)) {
                    return fail("null written where the reader's " + r + " has no null");
                }
                int[] slots = slotsUnder(node);
                return slots.length == 1 ? MethodHandles.insertArguments(SET_NULL, 0, slots[0]) : MethodHandles.insertArguments(SET_NULLS, 0, (Object) slots);
            }
            Schema rt = readerBranch(w, r);
            if (rt == null) {
                return fail("writer type " + w + " matches no branch of reader type " + r);
            }
            if (node.isLeaf()) {
                return leaf(w, rt, node.slot);
            }
            if (w.getType() != Schema.Type.RECORD || rt.getType() != Schema.Type.RECORD) {
                return fail("writer type " + w.getType() + " cannot be entered as reader record " + rt.getFullName());
            }
            List<MethodHandle> nested = new ArrayList<>();
            record(w, rt, node, nested);
            return sequence(nested);
        }

        /** A union: its branch index read, then that branch's step; an index outside the branches is a corrupt body. */
        private static MethodHandle union(List<MethodHandle> branches) {
            MethodHandle[] cases = branches.stream().map(b -> MethodHandles.dropArguments(b, 0, int.class)).toArray(MethodHandle[]::new);
            MethodHandle fallback = MethodHandles.insertArguments(BAD_UNION_INDEX, 0, cases.length);
            return MethodHandles.foldArguments(MethodHandles.tableSwitch(fallback, cases), UNION_INDEX);
        }

        private MethodHandle leaf(Schema w, Schema r, int slot) {
            Schema.Type wt = w.getType();
            Schema.Type rt = r.getType();
            MethodHandle read = switch (rt) {
                case INT, LONG -> wt == Schema.Type.INT ? READ_INT : wt == Schema.Type.LONG && rt == Schema.Type.LONG ? READ_LONG : null;
                case BOOLEAN -> wt == Schema.Type.BOOLEAN ? READ_BOOLEAN : null;
                case FLOAT, DOUBLE -> switch (wt) {
                    // Avro promotes to the reader's type: an int or long read as float is rounded to a float first.
                    case INT -> rt == Schema.Type.FLOAT ? INT_TO_FLOAT : INT_TO_DOUBLE;
                    case LONG -> rt == Schema.Type.FLOAT ? LONG_TO_FLOAT : LONG_TO_DOUBLE;
                    case FLOAT -> FLOAT_TO_DOUBLE;
                    case DOUBLE -> rt == Schema.Type.DOUBLE ? READ_DOUBLE : null;
                    default -> null;
                };
                // Both are a length and bytes on the wire.
                case STRING, BYTES -> wt == Schema.Type.STRING || wt == Schema.Type.BYTES ? READ_STRING : null;
                case ENUM -> wt == Schema.Type.ENUM ? MethodHandles.insertArguments(READ_ENUM, 0, enumMapping(w, r)) : null;
                default -> null;
            };
            return read == null ? fail("writer type " + w + " cannot be read as " + r) : MethodHandles.insertArguments(read, 0, slot);
        }

        private static EnumMapping enumMapping(Schema w, Schema r) {
            List<String> symbols = w.getEnumSymbols();
            int[] ordinals = new int[symbols.size()];
            for (int i = 0; i < ordinals.length; i++) {
                String symbol = r.hasEnumSymbol(symbols.get(i)) ? symbols.get(i) : r.getEnumDefault();
                ordinals[i] = symbol == null ? -1 : r.getEnumOrdinal(symbol);
            }
            return new EnumMapping(ordinals, symbols, w.getFullName(), r.getFullName());
        }

        /** Sets the slots under {@code node} from a reader field's default (JSON-shaped: null, number, string, map). */
        private void defaultOf(Object value, Projection.Node node) {
            if (node.isLeaf()) {
                int slot = node.slot;
                Projection.SlotKind kind = projection.kind(slot);
                if (value == null || value == JsonProperties.NULL_VALUE) {
                    defaults.add(MethodHandles.insertArguments(SET_NULL, 0, slot));
                } else if (kind == Projection.SlotKind.ENUM) {
                    long ordinal = Projection.nonNull(node.readerType).getEnumOrdinal(value.toString());
                    defaults.add(MethodHandles.insertArguments(DEFAULT_LONG, 0, ordinal, slot));
                } else if (kind == Projection.SlotKind.STRING) {
                    // a bytes field's default is already its bytes (Avro reads the JSON string's ISO-8859-1 bytes)
                    byte[] utf8 = value instanceof byte[] bytes ? bytes : value.toString().getBytes(StandardCharsets.UTF_8);
                    defaults.add(MethodHandles.insertArguments(DEFAULT_STRING, 0, utf8, slot));
                } else if (kind == Projection.SlotKind.DOUBLE) {
                    defaults.add(MethodHandles.insertArguments(DEFAULT_DOUBLE, 0, ((Number) value).doubleValue(), slot));
                } else {
                    long l = value instanceof Boolean b ? (b ? 1 : 0) : ((Number) value).longValue();
                    defaults.add(MethodHandles.insertArguments(DEFAULT_LONG, 0, l, slot));
                }
                return;
            }
            if (value == null || value == JsonProperties.NULL_VALUE) {
                for (int slot : slotsUnder(node)) { // a null record: every field under it is null
                    defaults.add(MethodHandles.insertArguments(SET_NULL, 0, slot));
                }
                return;
            }
            Map<?, ?> fields = value instanceof Map<?, ?> m ? m : Map.of();
            Schema record = Projection.nonNull(node.readerType);
            for (Map.Entry<String, Projection.Node> e : node.children.entrySet()) {
                Object v = fields.containsKey(e.getKey()) ? fields.get(e.getKey())
                        : record.getField(e.getKey()).hasDefaultValue() ? record.getField(e.getKey()).defaultVal() : null;
                defaultOf(v, e.getValue());
            }
        }

        private static MethodHandle fail(String why) {
            return MethodHandles.insertArguments(FAIL, 0, why);
        }

        private static int[] slotsUnder(Projection.Node node) {
            List<Integer> out = new ArrayList<>();
            slotsUnder(node, out);
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

        private static void slotsUnder(Projection.Node node, List<Integer> out) {
            if (node.isLeaf()) {
                out.add(node.slot);
            }
            node.children.values().forEach(c -> slotsUnder(c, out));
        }

        private static boolean nullable(Schema r) {
            return r.getType() == Schema.Type.NULL
                    || r.getType() == Schema.Type.UNION && r.getTypes().stream().anyMatch(b -> b.getType() == Schema.Type.NULL);
        }

        /** The reader type a (non-union) writer type resolves to: itself, or the first matching union branch, exact before promoted. */
        private static Schema readerBranch(Schema w, Schema r) {
            if (r.getType() != Schema.Type.UNION) {
                return r;
            }
            for (Schema b : r.getTypes()) {
                if (b.getType() == w.getType() && (!isNamed(b) || b.getFullName().equals(w.getFullName()))) {
                    return b;
                }
            }
            for (Schema b : r.getTypes()) {
                if (promotes(w.getType(), b.getType()) || isNamed(b) && b.getType() == w.getType() && b.getName().equals(w.getName())) {
                    return b;
                }
            }
            return null;
        }

        private static boolean isNamed(Schema s) {
            return s.getType() == Schema.Type.RECORD || s.getType() == Schema.Type.ENUM || s.getType() == Schema.Type.FIXED;
        }

        private static boolean promotes(Schema.Type w, Schema.Type r) {
            return switch (w) {
                case INT -> r == Schema.Type.LONG || r == Schema.Type.FLOAT || r == Schema.Type.DOUBLE;
                case LONG -> r == Schema.Type.FLOAT || r == Schema.Type.DOUBLE;
                case FLOAT -> r == Schema.Type.DOUBLE;
                case STRING -> r == Schema.Type.BYTES;
                case BYTES -> r == Schema.Type.STRING;
                default -> false;
            };
        }

        /**
         * Skips one value of the writer's type without materialising it. {@code r} is the reader's type of the value, or
         * null where the reader lacks it: Avro skips such a value (an array's or map's blocks by their byte size where the
         * writer gave it), but reads one the reader has although the query does not (item by item, an enum's symbol
         * mapped), and refuses there what it cannot read.
         */
        private MethodHandle skip(Schema w, Schema reader) {
            Schema r = reader == null || w.getType() == Schema.Type.UNION ? reader : readerBranch(w, reader);
            if (reader != null && r == null) {
                return fail("writer type " + w + " matches no branch of reader type " + reader);
            }
            return switch (w.getType()) {
                case NULL -> NOTHING;
                case BOOLEAN -> SKIP_BOOLEAN;
                case INT -> SKIP_INT;
                // An index outside the symbols is a damaged body even where the query does not read the field, as Avro
                // refuses it; where the reader lacks the field Avro skips the index unchecked.
                case ENUM -> r == null ? SKIP_INT : r.getType() == Schema.Type.ENUM ? MethodHandles.insertArguments(CHECK_ENUM, 0, enumMapping(w, r))
                        : MethodHandles.insertArguments(SKIP_ENUM, 0, w.getEnumSymbols().size());
                case LONG -> SKIP_LONG;
                case FLOAT -> MethodHandles.insertArguments(SKIP_FIXED, 0, 4);
                case DOUBLE -> MethodHandles.insertArguments(SKIP_FIXED, 0, 8);
                case STRING, BYTES -> r == null ? SKIP_UNREAD : SKIP_STRING;
                case FIXED -> MethodHandles.insertArguments(SKIP_FIXED, 0, w.getFixedSize());
                case UNION -> union(w.getTypes().stream().map(b -> skip(b, r)).toList());
                case RECORD -> skipRecord(w, r != null && r.getType() == Schema.Type.RECORD ? r : null);
                // Rare in Baton's events.
                case ARRAY -> array(w, r);
                case MAP -> map(w, r);
            };
        }

        /**
         * An array not projected. Where the reader has it, each block is checked before its first item by the least
         * encoded size of the reader's item type, as Avro's fast reader checks it with the reader's schema; where the
         * reader lacks it, only a writer's item type that takes no bytes is checked, by the count of its items.
         */
        private MethodHandle array(Schema w, Schema r) {
            Schema item = w.getElementType();
            if (r == null) {
                return MethodHandles.insertArguments(BLOCKS, 0, skip(item, null), AvroArrayLimits.minItemBytes(item) == 0);
            }
            Schema readerItem = r.getType() == Schema.Type.ARRAY ? r.getElementType() : null;
            int minItemBytes = AvroArrayLimits.minItemBytes(readerItem == null ? item : readerItem);
            return MethodHandles.insertArguments(ARRAY_ITEMS, 0, skip(item, readerItem), minItemBytes);
        }

        /** A map not projected: its keys and values in turn, skipped (the reader lacks it) or read item by item. */
        private MethodHandle map(Schema w, Schema r) {
            Schema readerValue = r != null && r.getType() == Schema.Type.MAP ? r.getValueType() : null;
            MethodHandle entry = sequence(List.of(r == null ? SKIP_UNREAD : SKIP_STRING, skip(w.getValueType(), readerValue)));
            return r == null ? MethodHandles.insertArguments(BLOCKS, 0, entry, false) : MethodHandles.insertArguments(ITEMS, 0, entry);
        }

        /**
         * A record's fields skipped in line; a record met again inside itself (a failure's cause is a failure) is
         * skipped through a holder of its own body, filled in once its fields are compiled, instead of recursing forever.
         */
        private MethodHandle skipRecord(Schema w, Schema r) {
            for (int i = skipping.size() - 1; i >= 0; i--) {
                if (skipping.get(i) == w && skippingReaders.get(i) == r) {
                    return MethodHandles.insertArguments(RECURSE, 0, (Object) skippingBodies.get(i));
                }
            }
            MethodHandle[] holder = new MethodHandle[1];
            skipping.add(w);
            skippingReaders.add(r);
            skippingBodies.add(holder);
            List<MethodHandle> fields = new ArrayList<>();
            for (Schema.Field f : w.getFields()) {
                Schema.Field rf = r == null ? null : r.getField(f.name());
                fields.add(skip(f.schema(), rf == null ? null : rf.schema()));
            }
            skipping.remove(skipping.size() - 1);
            skippingReaders.remove(skippingReaders.size() - 1);
            skippingBodies.remove(skippingBodies.size() - 1);
            holder[0] = sequence(fields);
            return holder[0];
        }
    }
}
