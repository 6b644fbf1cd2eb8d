package dev.baton.morsel.scheduler;

import java.util.List;

import dev.baton.morsel.morsel.Morsel;

/** A named pipeline: one task per morsel; {@code rows} (0 if unknown) feeds the throughput metrics. Pipelines of one wave list run together; waves are separated by barriers. */
public record Pipeline(String name, List<Morsel> morsels, long rows, MorselTask task) {

    public Pipeline {
        morsels = List.copyOf(morsels);
    }

    /** A pipeline whose row count is unknown (metrics count its morsels only). */
    public Pipeline(String name, List<Morsel> morsels, MorselTask task) {
        this(name, morsels, 0, task);
    }
}
