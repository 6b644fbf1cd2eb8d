package dev.baton.morsel.scheduler;

import java.util.List;

/** What one pipeline run did: tasks completed in all and per worker, how many were stolen, how long it took. */
public record PipelineReport(String pipeline, int completedTasks, List<Integer> perWorker, int stolen, long nanos) {
}
