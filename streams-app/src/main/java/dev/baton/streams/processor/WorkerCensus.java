package dev.baton.streams.processor;

/** How many live workers serve a queue, from the {@code baton.workers} registrations. */
public interface WorkerCensus {

    int liveWorkers(String queue);

    /** A census that has seen no worker at all. */
    WorkerCensus NONE = queue -> 0;
}
