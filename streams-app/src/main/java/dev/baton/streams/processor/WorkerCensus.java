package dev.baton.streams.processor;

/** How many live workers serve a queue, or a node of it, from the {@code baton.workers} registrations. */
public interface WorkerCensus {

    /** Live workers of {@code queue}; with a {@code node}, only those carrying that node label. */
    int liveWorkers(String queue, String node);

    /** A census that has seen no worker at all. */
    WorkerCensus NONE = (queue, node) -> 0;
}
