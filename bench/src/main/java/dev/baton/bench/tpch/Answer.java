package dev.baton.bench.tpch;

import java.util.List;

/**
 * A query's answer as the system computed it, in its own in-memory form (the engine's columnar
 * aggregate, DuckDB's table), with the Java rows the answers are compared by made on demand. The
 * bench times a query up to its answer and makes the rows after: boxing the 1.5 million groups of
 * {@code GROUP BY l_orderkey} into Java objects took longer than any system's query, and measured
 * the JVM's allocator and collector rather than the query (docs/decisions.md).
 */
@FunctionalInterface
public interface Answer {

    List<List<Object>> rows();

    /** An answer small enough to be made as rows at once. */
    static Answer of(List<List<Object>> rows) {
        return () -> rows;
    }
}
