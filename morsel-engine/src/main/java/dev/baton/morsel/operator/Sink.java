package dev.baton.morsel.operator;

/**
 * Where a pipeline's batches end: an aggregate's partial tables, a join's build tables. Keeps one
 * partial per worker, so {@link #consume} runs without locks; partials meet at the pipeline's
 * barrier.
 */
public interface Sink {

    /** Takes the selected rows of {@code b}; called only by worker {@code worker}'s thread. */
    void consume(int worker, Batch b);
}
