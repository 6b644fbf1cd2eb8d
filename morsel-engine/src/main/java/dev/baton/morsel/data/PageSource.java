package dev.baton.morsel.data;

import java.nio.LongBuffer;
import java.util.List;

/**
 * Pages of 64-bit column values, read by morsel tasks. A page file implements it; a Kafka topic
 * partition (a page = an offset range) can too.
 */
public interface PageSource {

    int pageCount();

    long rowCount();

    int pageBytes();

    int rowsIn(int page);

    List<String> columns();

    LongBuffer page(int page, int column);
}
