package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * The columns a pipeline's batches carry: the source's columns first, then the columns its stages
 * compute (projections, join payloads), each by name. Built while a pipeline is assembled; not
 * thread-safe until then, read-only after.
 */
public final class Layout {

    private final List<String> source;
    private final List<String> computed = new ArrayList<>();

    Layout(List<String> source) {
        this.source = List.copyOf(source);
    }

    /** A reference to column {@code name}, a source column or one computed so far. */
    public ColumnRef col(String name) {
        int i = source.indexOf(name);
        if (i >= 0) {
            return new ColumnRef(name, i, true);
        }
        int c = computed.indexOf(name);
        if (c >= 0) {
            return new ColumnRef(name, c, false);
        }
        throw new IllegalArgumentException("no column '" + name + "' in this pipeline; columns are " + source + " and computed " + computed);
    }

    ColumnRef addComputed(String name) {
        if (source.contains(name) || computed.contains(name)) {
            throw new IllegalArgumentException("column '" + name + "' already exists in this pipeline");
        }
        computed.add(name);
        return new ColumnRef(name, computed.size() - 1, false);
    }

    int computedCount() {
        return computed.size();
    }
}
