package dev.baton.morsel.kafka;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;

/**
 * Test-only: the projection plan as it was before issue 30's decode work (h/decode38), one {@code Step} lambda per
 * writer field, kept as the reference the new plan is compared with (answers) and timed against ({@code DecodeHarness}).
 *
 * <p>A {@link Projection} compiled against one writer schema: the writer's fields in the order they
 * were written, each either read into its slot (resolved to the reader's type by Avro's rules:
 * int to long, float or double; long to float or double; string and bytes both ways; enum symbols
 * by name, unknown ones to the reader's default; unions by branch) or skipped with the
 * {@link WireReader}'s skips. Reader fields the writer lacks take their defaults. Nothing is allocated per
 * value: no record object, no string unless its slot is read.
 *
 * <p>Immutable and thread-safe once built; decoding writes only into the caller's row.
 */
final class StepPlan {

    /** One step over the writer's bytes. */
    @FunctionalInterface
    interface Step {
        void run(WireReader in, ProjectedRow row) throws IOException;
    }

    /** A writer value the reader cannot take (a union branch or enum symbol without a match); names both. */
    static final class Mismatch extends RuntimeException {
        Mismatch(String message) {
            super(message);
        }
    }

    private final Step[] steps;
    /** Slot defaults for reader fields the writer lacks, applied before the steps. */
    private final Step[] defaults;

    private StepPlan(Step[] steps, Step[] defaults) {
        this.steps = steps;
        this.defaults = defaults;
    }

    static StepPlan compile(Schema writer, Projection projection) {
        List<Step> steps = new ArrayList<>();
        List<Step> defaults = new ArrayList<>();
        new Compiler(projection, defaults).record(writer, projection.reader(), projection.root(), steps);
        return new StepPlan(steps.toArray(Step[]::new), defaults.toArray(Step[]::new));
    }

    void decode(WireReader in, ProjectedRow row) throws IOException {
        java.util.Arrays.fill(row.nulls, false);
        for (Step d : defaults) {
            d.run(in, row);
        }
        for (Step s : steps) {
            s.run(in, row);
        }
    }

    /** Builds the steps; one instance per compile. */
    private static final class Compiler {
        private final Projection projection;
        private final List<Step> defaults;

        Compiler(Projection projection, List<Step> defaults) {
            this.projection = projection;
            this.defaults = defaults;
        }

        void record(Schema writer, Schema reader, Projection.Node node, List<Step> out) {
            Set<String> matched = new HashSet<>();
            for (Schema.Field wf : writer.getFields()) {
                Schema.Field rf = readerField(reader, wf);
                Projection.Node child = rf == null ? null : node.children.get(rf.name());
                if (child == null) {
                    out.add(skip(wf.schema()));
                } else {
                    matched.add(rf.name());
                    out.add(field(wf.schema(), rf.schema(), child));
                }
            }
            for (Map.Entry<String, Projection.Node> e : node.children.entrySet()) {
                if (!matched.contains(e.getKey())) {
                    Schema.Field rf = reader.getField(e.getKey());
                    defaultOf(rf, rf.hasDefaultValue() ? rf.defaultVal() : null, e.getValue());
                }
            }
        }

        private static Schema.Field readerField(Schema reader, Schema.Field writerField) {
            Schema.Field f = reader.getField(writerField.name());
            if (f != null) {
                return f;
            }
            for (Schema.Field candidate : reader.getFields()) {
                if (candidate.aliases().contains(writerField.name())) {
                    return candidate;
                }
            }
            return null;
        }

        /** A projected field: a leaf read into its slot, or a record entered. */
        private Step field(Schema w, Schema r, Projection.Node node) {
            if (w.getType() == Schema.Type.UNION) {
                Step[] branches = new Step[w.getTypes().size()];
                for (int i = 0; i < branches.length; i++) {
                    branches[i] = field(w.getTypes().get(i), r, node);
                }
                return (in, row) -> branches[in.readInt()].run(in, row);
            }
            if (w.getType() == Schema.Type.NULL) {
                if (!nullable(r)) {
                    return fail("null written where the reader's " + r + " has no null");
                }
                List<Integer> slots = new ArrayList<>();
                slotsUnder(node, slots);
                int[] s = slots.stream().mapToInt(Integer::intValue).toArray();
                return (in, row) -> {
                    for (int slot : s) {
                        row.nulls[slot] = true;
                    }
                };
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
            List<Step> nested = new ArrayList<>();
            record(w, rt, node, nested);
            Step[] steps = nested.toArray(Step[]::new);
            return (in, row) -> {
                for (Step s : steps) {
                    s.run(in, row);
                }
            };
        }

        private Step leaf(Schema w, Schema r, int slot) {
            Schema.Type wt = w.getType();
            Schema.Type rt = r.getType();
            switch (rt) {
                case INT, LONG:
                    if (wt == Schema.Type.INT) {
                        return (in, row) -> row.longs[slot] = in.readInt();
                    }
                    if (wt == Schema.Type.LONG && rt == Schema.Type.LONG) {
                        return (in, row) -> row.longs[slot] = in.readLong();
                    }
                    break;
                case BOOLEAN:
                    if (wt == Schema.Type.BOOLEAN) {
                        return (in, row) -> row.longs[slot] = in.readBoolean() ? 1 : 0;
                    }
                    break;
                case FLOAT, DOUBLE:
                    switch (wt) {
                        case INT: return (in, row) -> row.doubles[slot] = in.readInt();
                        case LONG: return (in, row) -> row.doubles[slot] = in.readLong();
                        case FLOAT: return (in, row) -> row.doubles[slot] = in.readFloat();
                        case DOUBLE:
                            if (rt == Schema.Type.DOUBLE) {
                                return (in, row) -> row.doubles[slot] = in.readDouble();
                            }
                            break;
                        default:
                            break;
                    }
                    break;
                case STRING, BYTES:
                    if (wt == Schema.Type.STRING || wt == Schema.Type.BYTES) {
                        // Both are a length and bytes on the wire.
                        return (in, row) -> in.readString(row, slot);
                    }
                    break;
                case ENUM:
                    if (wt == Schema.Type.ENUM) {
                        return enumStep(w, r, slot);
                    }
                    break;
                default:
                    break;
            }
            return fail("writer type " + w + " cannot be read as " + r);
        }

        private static Step enumStep(Schema w, Schema r, int slot) {
            List<String> symbols = w.getEnumSymbols();
            int[] ordinal = new int[symbols.size()];
            for (int i = 0; i < ordinal.length; i++) {
                String symbol = r.hasEnumSymbol(symbols.get(i)) ? symbols.get(i) : r.getEnumDefault();
                ordinal[i] = symbol == null ? -1 : r.getEnumOrdinal(symbol);
            }
            return (in, row) -> {
                int i = in.readInt();
                if (i < 0 || i >= ordinal.length) {
                    // since the adversary of h/adv38: a damaged body (refused as corrupt), as EventSerde refuses it
                    throw new IllegalArgumentException("enum index " + i + " outside the writer's " + ordinal.length + " symbols of " + w.getFullName());
                }
                if (ordinal[i] < 0) {
                    throw new Mismatch("enum symbol " + symbols.get(i) + " is unknown to the reader's " + r.getFullName() + ", which has no default");
                }
                row.longs[slot] = ordinal[i];
            };
        }

        /** Sets the slots under {@code node} from a reader field's default (JSON-shaped: null, number, string, map). */
        private void defaultOf(Schema.Field field, Object value, Projection.Node node) {
            if (node.isLeaf()) {
                int slot = node.slot;
                Projection.SlotKind kind = projection.kind(slot);
                if (value == null || value == JsonProperties.NULL_VALUE) {
                    defaults.add((in, row) -> row.nulls[slot] = true);
                } else if (kind == Projection.SlotKind.ENUM) {
                    int ordinal = Projection.nonNull(node.readerType).getEnumOrdinal(value.toString());
                    defaults.add((in, row) -> row.longs[slot] = ordinal);
                } else if (kind == Projection.SlotKind.STRING) {
                    byte[] s = value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    defaults.add((in, row) -> row.setString(slot, s, 0, s.length));
                } else if (kind == Projection.SlotKind.DOUBLE) {
                    double d = ((Number) value).doubleValue();
                    defaults.add((in, row) -> row.doubles[slot] = d);
                } else {
                    long l = value instanceof Boolean b ? (b ? 1 : 0) : ((Number) value).longValue();
                    defaults.add((in, row) -> row.longs[slot] = l);
                }
                return;
            }
            if (value == null || value == JsonProperties.NULL_VALUE) {
                List<Integer> slots = new ArrayList<>();
                slotsUnder(node, slots); // a null record: every field under it is null
                for (int slot : slots) {
                    defaults.add((in, row) -> row.nulls[slot] = true);
                }
                return;
            }
            Map<?, ?> fields = value instanceof Map<?, ?> m ? m : Map.of();
            Schema record = Projection.nonNull(node.readerType);
            for (Map.Entry<String, Projection.Node> e : node.children.entrySet()) {
                Object v = fields.containsKey(e.getKey()) ? fields.get(e.getKey())
                        : record.getField(e.getKey()).hasDefaultValue() ? record.getField(e.getKey()).defaultVal() : null;
                defaultOf(record.getField(e.getKey()), v, e.getValue());
            }
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

        /** Skips an array's or a map's blocks; each item is {@code item}'s steps in turn. */
        private static Step blocks(Step[] item) {
            return (in, row) -> {
                for (long n = in.blockCount(true); n != 0; n = in.blockCount(true)) {
                    for (long i = 0; i < n; i++) {
                        for (Step s : item) {
                            s.run(in, row);
                        }
                    }
                }
            };
        }

        private static Step fail(String why) {
            return (in, row) -> {
                throw new Mismatch(why);
            };
        }

        /** Skips one value of the writer's type without materialising it. */
        static Step skip(Schema w) {
            return skip(w, new IdentityHashMap<>());
        }

        /**
         * @param records the field skips of each record met so far: a record that contains itself (a failure's
         *                cause is a failure) reuses its own, filled in once its fields are compiled, instead of recursing forever
         */
        private static Step skip(Schema w, Map<Schema, Step[]> records) {
            return switch (w.getType()) {
                case NULL -> (in, row) -> { };
                case BOOLEAN -> (in, row) -> in.readBoolean();
                case INT -> (in, row) -> in.readInt();
                case LONG -> (in, row) -> in.readLong();
                case FLOAT -> (in, row) -> in.skipFixed(4);
                case DOUBLE -> (in, row) -> in.skipFixed(8);
                case STRING -> (in, row) -> in.skipString();
                case BYTES -> (in, row) -> in.skipString();
                case ENUM -> {
                    int symbols = w.getEnumSymbols().size();
                    yield (in, row) -> {
                        int index = in.readInt();
                        if (index < 0 || index >= symbols) {
                            throw new IllegalArgumentException("enum index " + index + " outside the writer's " + symbols + " symbols");
                        }
                    };
                }
                case FIXED -> {
                    int size = w.getFixedSize();
                    yield (in, row) -> in.skipFixed(size);
                }
                case UNION -> {
                    Step[] branches = w.getTypes().stream().map(b -> skip(b, records)).toArray(Step[]::new);
                    yield (in, row) -> branches[in.readInt()].run(in, row);
                }
                case RECORD -> {
                    Step[] fields = records.get(w);
                    if (fields == null) {
                        fields = new Step[w.getFields().size()];
                        records.put(w, fields); // before its fields: one of them may be this record again
                        for (int i = 0; i < fields.length; i++) {
                            fields[i] = skip(w.getFields().get(i).schema(), records);
                        }
                    }
                    Step[] all = fields;
                    yield (in, row) -> {
                        for (Step f : all) {
                            f.run(in, row);
                        }
                    };
                }
                // Rare in Baton's events: blocks are skipped by their byte size when the writer gave it, else item by item.
                case ARRAY -> blocks(new Step[] {skip(w.getElementType(), records)});
                case MAP -> blocks(new Step[] {(in, row) -> in.skipString(), skip(w.getValueType(), records)});
            };
        }
    }
}
