package dev.baton.morsel.scheduler;

/**
 * What a pipeline does, which decides how its morsels are dealt and what must run before it.
 * A {@link #PROBE} pipeline reads a hash table that {@link #BUILD} pipelines fill: it runs only
 * after its builds finished (a barrier), and its morsels are dealt to workers by a hash exchange of
 * the morsel id with hot-partition spill rather than by NUMA preference, so a probe side whose
 * morsels skew cannot pile up on one worker before stealing starts.
 */
public enum PipelineKind {
    /** Scan, filter, project, feed a sink (an aggregate, a collector). */
    SCAN,
    /** Fill a hash join's build table. */
    BUILD,
    /** Probe a built hash table; needs its builds to have run. */
    PROBE,
    /** Merge exchanged partials, one task per exchange partition. */
    MERGE
}
