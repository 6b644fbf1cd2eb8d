package dev.baton.morsel.scheduler;

import java.util.List;

/**
 * What one pipeline run did: tasks completed in all and per worker, how many were stolen, how long it took. Per worker
 * (DEQUES mode; empty lists for FORK_JOIN): the thread CPU it spent in this pipeline, and when it took its first task
 * and finished, in nanoseconds from the pipeline's start: the busiest worker's CPU is the pipeline's critical path on
 * an idle machine, and a late start shows a worker the machine did not run.
 */
public record PipelineReport(String pipeline, int completedTasks, List<Integer> perWorker, int stolen, long nanos,
        List<Long> workerCpuNanos, List<Long> workerStartNanos, List<Long> workerEndNanos) {

    public PipelineReport {
        perWorker = List.copyOf(perWorker);
        workerCpuNanos = List.copyOf(workerCpuNanos);
        workerStartNanos = List.copyOf(workerStartNanos);
        workerEndNanos = List.copyOf(workerEndNanos);
    }

    /** The largest CPU time of one worker in this pipeline (0 when not recorded). */
    public long busiestWorkerCpuNanos() {
        long max = 0;
        for (long c : workerCpuNanos) {
            max = Math.max(max, c);
        }
        return max;
    }
}
