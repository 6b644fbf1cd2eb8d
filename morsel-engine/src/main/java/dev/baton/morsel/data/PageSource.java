package dev.baton.morsel.data;

import java.nio.LongBuffer;
import java.util.List;

/**
 * Pages of column values, read by morsel tasks. A page file implements it; a Kafka topic partition
 * (a page = an offset range) can too.
 */
public interface PageSource {

    int pageCount();

    long rowCount();

    /** Bytes of one column page, for sizing morsels (an estimate where pages vary). */
    int pageBytes();

    int rowsIn(int page);

    List<String> columns();

    /** One column page as 64-bit values. */
    LongBuffer page(int page, int column);

    /**
     * Bounds every value of {@code column} lies within, known without reading a value (a page file's encodings), or
     * {@code null} where the source does not know them: a join build sizes a direct table from them before it reads a row.
     */
    default ValueRange valueRange(int column) {
        return null;
    }

    /**
     * One column page in its stored encoding, for operators. A source that holds only longs answers
     * a {@link ColumnEncoding#LONG} page (this default copies {@link #page} once).
     */
    default ColumnPage column(int page, int column) {
        return ColumnPage.ofLongs(page(page, column), rowsIn(page));
    }
}
