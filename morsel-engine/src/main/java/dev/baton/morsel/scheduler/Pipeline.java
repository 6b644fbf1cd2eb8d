package dev.baton.morsel.scheduler;

import java.util.List;

import dev.baton.morsel.morsel.Morsel;

/**
 * A named pipeline: one task per morsel, of a {@link PipelineKind}. {@code rows} (0 if unknown)
 * feeds the throughput metrics. A {@link PipelineKind#PROBE} pipeline names the build pipelines it
 * reads in {@code builds}; {@link MorselScheduler#runWaves} refuses a plan where they do not run
 * first. Waves are separated by barriers.
 */
public record Pipeline(String name, PipelineKind kind, List<Morsel> morsels, long rows, List<String> builds, MorselTask task) {

    public Pipeline {
        morsels = List.copyOf(morsels);
        builds = List.copyOf(builds);
        if (kind == PipelineKind.PROBE && builds.isEmpty()) {
            throw new IllegalArgumentException("probe pipeline '" + name + "' must name the build pipeline(s) it reads");
        }
        if (kind != PipelineKind.PROBE && !builds.isEmpty()) {
            throw new IllegalArgumentException("only a probe pipeline waits for builds; '" + name + "' is " + kind);
        }
    }

    /** A scan pipeline. */
    public Pipeline(String name, List<Morsel> morsels, long rows, MorselTask task) {
        this(name, PipelineKind.SCAN, morsels, rows, List.of(), task);
    }

    /** A scan pipeline whose row count is unknown (metrics count its morsels only). */
    public Pipeline(String name, List<Morsel> morsels, MorselTask task) {
        this(name, morsels, 0, task);
    }

    /** A pipeline of a kind that waits for no build. */
    public static Pipeline of(String name, PipelineKind kind, List<Morsel> morsels, long rows, MorselTask task) {
        return new Pipeline(name, kind, morsels, rows, List.of(), task);
    }

    /** A probe pipeline that reads the tables of {@code builds}. */
    public static Pipeline probe(String name, List<Morsel> morsels, long rows, List<String> builds, MorselTask task) {
        return new Pipeline(name, PipelineKind.PROBE, morsels, rows, builds, task);
    }
}
