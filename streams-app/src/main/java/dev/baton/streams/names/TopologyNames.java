package dev.baton.streams.names;

import dev.baton.topics.BatonTopics;

/** Every source, processor, sink and store name of the streams app's topology, in one place. */
public final class TopologyNames {

    public static final String DISPATCH_SOURCE = "dispatch-source";
    public static final String WORKER_EVENTS_SOURCE = "worker-events-source";
    public static final String SITE_PROCESSOR = "site-processor";

    public static final String TASKS_SINK = "tasks-sink";
    public static final String WORKER_CONTROL_SINK = "worker-control-sink";
    public static final String RESULTS_SINK = "results-sink";
    public static final String HISTORY_SINK = "history-sink";
    public static final String DLQ_SINK = "dlq-sink";
    /** Clock ticks back into the task's own worker-events partition (see ReportClock). */
    public static final String CLOCK_SINK = "clock-sink";

    public static final String SITES_STORE = "sites";
    public static final String DEADLINES_STORE = "deadlines";
    /** Global store of {@code baton.workers}: the worker census. */
    public static final String WORKERS_STORE = "workers";
    public static final String WORKERS_SOURCE = "workers-source";
    public static final String WORKERS_PROCESSOR = "workers-census";

    /** Header naming the task topic a task record goes to (the sink's dynamic topic choice). */
    public static final String TASK_TOPIC_HEADER = "baton.task-topic";
    /** Header marking a clock tick on {@code baton.worker-events}; its value is the writer's wall clock (8 bytes). */
    public static final String CLOCK_HEADER = "baton.clock";
    /** Header of a deadline record: a due deadline, written by the task to its own worker-events partition (at-least-once mode). */
    public static final String DEADLINE_HEADER = "baton.deadline";
    /**
     * Header of a schedule-to-start deadline record: the live workers the census counted for the
     * site's queue (and node) when the record was written (4 bytes), which its firing reports.
     */
    public static final String DEADLINE_CENSUS_HEADER = "baton.deadline.census";
    /** A deadline record's arming input and the streams app's proof of it (see DeadlineArm). */
    public static final String DEADLINE_ARMED_BY_HEADER = "baton.deadline.armed-by";

    /** Registry subjects of the store values (the changelogs hold the same bytes). */
    public static final String SITES_SUBJECT_TOPIC = "baton.store.sites";

    public static final String[] INPUT_TOPICS = {BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS};

    private TopologyNames() {
    }
}
