package dev.baton.morsel.scheduler;

/** What a running task can ask its scheduler: long tasks check {@link #isCancelled()} between pages. */
public interface TaskContext {

    boolean isCancelled();
}
