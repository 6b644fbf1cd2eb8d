package dev.baton.morsel.operator;

/**
 * A step inside a pipeline between its scan and its sink: narrows the batch's selection (a filter,
 * a join probe) or adds a computed column (a projection). Stages hold no per-worker state beyond
 * the batch, so one instance serves every worker.
 */
public interface Stage {

    void apply(Batch b);
}
