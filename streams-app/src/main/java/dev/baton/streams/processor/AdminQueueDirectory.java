package dev.baton.streams.processor;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declared queues, from the cluster's topic list. Refreshed every {@code refreshMs}; an unknown queue
 * triggers at most one synchronous refresh per second, so a queue declared a moment before its first
 * dispatch is found without letting a flood of bad queue names hammer the controller.
 */
public final class AdminQueueDirectory implements QueueDirectory, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AdminQueueDirectory.class);
    private static final long MISS_REFRESH_INTERVAL_MS = 1_000;

    private final Admin admin;
    private final long refreshMs;
    private volatile Set<String> topics = Set.of();
    private volatile long refreshedAtNanos;

    public AdminQueueDirectory(Admin admin, long refreshMs) {
        this.admin = admin;
        this.refreshMs = refreshMs;
        refresh();
    }

    @Override
    public boolean isDeclared(String queue) {
        String topic = BatonTopics.TASKS_PREFIX + queue;
        long age = (System.nanoTime() - refreshedAtNanos) / 1_000_000; // elapsed time: monotonic, not wall clock
        if (age > refreshMs || (!topics.contains(topic) && age > MISS_REFRESH_INTERVAL_MS)) {
            refresh();
        }
        return topics.contains(topic);
    }

    private synchronized void refresh() {
        try {
            topics = admin.listTopics(new ListTopicsOptions().timeoutMs((int) Duration.ofSeconds(2).toMillis()))
                    .names().get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("could not refresh the list of declared queues (keeping {} known topics): {}", topics.size(), e.toString());
        } finally {
            refreshedAtNanos = System.nanoTime();
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
