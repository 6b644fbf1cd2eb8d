package dev.baton.morsel.scheduler;

import dev.baton.morsel.morsel.Morsel;

/** The work of a pipeline on one morsel. {@code worker} indexes per-worker state (thread-local partials). */
@FunctionalInterface
public interface MorselTask {

    void run(int worker, Morsel morsel, TaskContext context) throws Exception;
}
