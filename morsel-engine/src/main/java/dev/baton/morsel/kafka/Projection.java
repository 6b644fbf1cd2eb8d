package dev.baton.morsel.kafka;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;

/**
 * The fields a query reads from an Avro value, named by dotted paths into the reader's schema
 * ({@code "kind"}, {@code "site.workflowId"}). Path {@code i} is slot {@code i} of a
 * {@link ProjectedRow}. A path ends at a scalar: int, long, boolean, float, double, string, bytes or
 * enum, possibly inside a {@code ["null", T]} union; records are entered, not projected whole.
 *
 * <p>Immutable and thread-safe.
 */
public final class Projection {

    /** What a slot holds. */
    enum SlotKind { LONG, DOUBLE, STRING, ENUM }

    /** One reader field of the projection tree: a leaf has a slot, a record node has children. */
    static final class Node {
        final Schema readerType;
        final int slot;
        final Map<String, Node> children = new LinkedHashMap<>();

        Node(Schema readerType, int slot) {
            this.readerType = readerType;
            this.slot = slot;
        }

        boolean isLeaf() {
            return slot >= 0;
        }
    }

    private final Schema reader;
    private final List<String> paths;
    private final SlotKind[] kinds;
    private final Node root;

    private Projection(Schema reader, List<String> paths) {
        if (reader.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("a projection reads a record schema, was " + reader.getType() + " " + reader.getFullName());
        }
        this.reader = reader;
        this.paths = List.copyOf(paths);
        this.kinds = new SlotKind[paths.size()];
        this.root = new Node(reader, -1);
        for (int slot = 0; slot < paths.size(); slot++) {
            add(paths.get(slot), slot);
        }
    }

    /**
     * @throws IllegalArgumentException if a path names no field, passes through a non-record, ends
     *     at a record, array, map or fixed, or is given twice
     */
    public static Projection of(Schema reader, String... paths) {
        return new Projection(reader, List.of(paths));
    }

    public Schema reader() {
        return reader;
    }

    public List<String> paths() {
        return paths;
    }

    /** The slot of {@code path}; throws if the projection does not read it. */
    public int slot(String path) {
        int i = paths.indexOf(path);
        if (i < 0) {
            throw new IllegalArgumentException("this projection does not read '" + path + "'; it reads " + paths);
        }
        return i;
    }

    public int size() {
        return paths.size();
    }

    SlotKind kind(int slot) {
        return kinds[slot];
    }

    Node root() {
        return root;
    }

    private void add(String path, int slot) {
        String[] parts = path.split("\\.");
        Node node = root;
        for (int i = 0; i < parts.length; i++) {
            Schema record = nonNull(node.readerType);
            if (record.getType() != Schema.Type.RECORD) {
                throw new IllegalArgumentException("path '" + path + "' enters '" + parts[i - 1] + "', a " + record.getType() + ", not a record");
            }
            Schema.Field field = record.getField(parts[i]);
            if (field == null) {
                throw new IllegalArgumentException("path '" + path + "' names no field '" + parts[i] + "' of " + record.getFullName()
                        + " (its fields: " + record.getFields().stream().map(Schema.Field::name).toList() + ")");
            }
            boolean last = i == parts.length - 1;
            Node child = node.children.get(field.name());
            if (child != null && (last || child.isLeaf())) {
                throw new IllegalArgumentException("path '" + path + "' overlaps another path of this projection " + paths);
            }
            if (child == null) {
                child = new Node(field.schema(), last ? slot : -1);
                node.children.put(field.name(), child);
            }
            node = child;
        }
        kinds[slot] = kindOf(path, nonNull(node.readerType));
    }

    private static SlotKind kindOf(String path, Schema type) {
        return switch (type.getType()) {
            case INT, LONG, BOOLEAN -> SlotKind.LONG;
            case FLOAT, DOUBLE -> SlotKind.DOUBLE;
            case STRING, BYTES -> SlotKind.STRING;
            case ENUM -> SlotKind.ENUM;
            default -> throw new IllegalArgumentException("path '" + path + "' ends at a " + type.getType()
                    + "; a projection reads scalars (int, long, boolean, float, double, string, bytes, enum)");
        };
    }

    /** {@code T} of a {@code ["null", T]} union, else the schema itself. */
    static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        List<Schema> branches = s.getTypes().stream().filter(b -> b.getType() != Schema.Type.NULL).toList();
        if (branches.size() != 1) {
            throw new IllegalArgumentException("a projection enters only [\"null\", T] unions, was " + s);
        }
        return branches.get(0);
    }
}
