package dev.baton.streams.processor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts writes to the global {@code workers} store, so a census can keep its answer until a
 * registration changes instead of scanning and decoding every worker's row on every dispatch.
 */
public final class CensusChanges {

    private final AtomicLong version = new AtomicLong();

    void changed() {
        version.incrementAndGet();
    }

    long version() {
        return version.get();
    }
}
