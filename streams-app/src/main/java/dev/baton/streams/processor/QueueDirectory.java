package dev.baton.streams.processor;

import java.util.Set;

import dev.baton.topics.BatonTopics;

/**
 * Which task topics exist: a queue is declared when {@code baton.tasks.<queue>} exists, a node of it
 * when {@code baton.tasks.<queue>.<node>} does. A task is published only to a declared topic: a send
 * to a missing topic would block the stream thread on metadata and then fail the task, and every
 * other site of the thread with it.
 */
public interface QueueDirectory {

    /** Whether the task topic exists. */
    boolean hasTopic(String taskTopic);

    default boolean isDeclared(String queue) {
        return hasTopic(BatonTopics.tasks(queue));
    }

    default boolean isDeclared(String queue, String node) {
        return hasTopic(BatonTopics.tasks(queue, node));
    }

    static QueueDirectory of(Set<String> taskTopics) {
        Set<String> copy = Set.copyOf(taskTopics);
        return copy::contains;
    }
}
