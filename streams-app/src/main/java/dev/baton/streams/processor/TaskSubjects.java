package dev.baton.streams.processor;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.baton.events.ActivityTask;
import dev.baton.schemas.EventSerde;
import dev.baton.topics.BatonTopics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the task schema under each queue's subject as soon as the queue's topic is seen, on a
 * thread of its own. Otherwise the first task of every new queue registered it on the stream thread,
 * which stopped for the registry's round trip (0.7-1 s each on a loaded 2-core machine with the
 * {@code kafka://} registry, whose write is read back): 200 new queues held every dispatch for minutes
 * (docs/reliability/scale-limits-2026-12-03.txt). A queue dispatched to before its subject is ready
 * still works: the stream thread waits for the registration in flight, or makes it.
 */
public final class TaskSubjects implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TaskSubjects.class);

    private final EventSerde<ActivityTask> tasks;
    private final Set<String> requested = ConcurrentHashMap.newKeySet();
    private final ExecutorService registrar = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "baton-task-subjects");
        t.setDaemon(true);
        return t;
    });

    public TaskSubjects(EventSerde<ActivityTask> tasks) {
        this.tasks = tasks;
    }

    /** The cluster's topics: registers, in the background, the subject of every task topic not seen before. */
    public void seen(Set<String> topics) {
        for (String topic : topics) {
            if (topic.startsWith(BatonTopics.TASKS_PREFIX) && requested.add(topic)) {
                registrar.execute(() -> register(topic));
            }
        }
    }

    private void register(String topic) {
        try {
            tasks.prepare(topic);
        } catch (RuntimeException e) {
            requested.remove(topic); // the first dispatch registers it, or the next list tries again
            log.warn("could not register the task schema for {} ahead of its first task: {}", topic, e.toString());
        }
    }

    @Override
    public void close() {
        registrar.shutdownNow();
        try {
            registrar.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
