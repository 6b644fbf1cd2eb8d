package dev.baton.morsel.scheduler;

import java.util.List;

import dev.baton.morsel.morsel.Morsel;

/** A named pipeline: one task per morsel. Pipelines of one wave list run together; waves are separated by barriers. */
public record Pipeline(String name, List<Morsel> morsels, MorselTask task) {

    public Pipeline {
        morsels = List.copyOf(morsels);
    }
}
