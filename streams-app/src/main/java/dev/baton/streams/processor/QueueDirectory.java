package dev.baton.streams.processor;

import java.util.Set;

/**
 * Which queues are declared (their task topic exists). A task is published only to a declared
 * queue: a send to a missing topic would block the stream thread on metadata and then fail the task.
 */
public interface QueueDirectory {

    boolean isDeclared(String queue);

    static QueueDirectory of(Set<String> queues) {
        Set<String> copy = Set.copyOf(queues);
        return copy::contains;
    }
}
