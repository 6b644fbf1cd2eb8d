package dev.baton.streams.processor;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declared queues and nodes, from the cluster's topic list, asked on the stream thread for every dispatch.
 * A list older than {@code refreshMs} is refreshed in the background and the known list answers
 * meanwhile: waiting for the Admin round trip there held up every dispatch behind it (the stream
 * thread picks nothing up while it waits). Only an unknown queue waits for a fresh list, so a queue
 * or node declared a moment before its first dispatch is found; at most once a second, so a flood of bad
 * queue names cannot hammer the controller.
 */
public final class AdminQueueDirectory implements QueueDirectory, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AdminQueueDirectory.class);
    private static final long MISS_REFRESH_INTERVAL_MS = 1_000;
    private static final Duration LIST_TIMEOUT = Duration.ofSeconds(2);

    private final Supplier<CompletionStage<Set<String>>> listTopics;
    private final AutoCloseable closeable;
    private final long refreshMs;
    private final LongSupplier nanoTime;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile Set<String> topics = Set.of();
    private volatile java.util.function.Consumer<Set<String>> listener = names -> { };
    private volatile long refreshedAtNanos;

    public AdminQueueDirectory(Admin admin, long refreshMs) {
        this(() -> admin.listTopics(new ListTopicsOptions().timeoutMs((int) LIST_TIMEOUT.toMillis())).names().toCompletionStage(),
                () -> admin.close(Duration.ofSeconds(5)), refreshMs, System::nanoTime);
    }

    /** {@code listTopics} lists the cluster's topic names; {@code nanoTime} is a monotonic clock. */
    AdminQueueDirectory(Supplier<CompletionStage<Set<String>>> listTopics, AutoCloseable closeable, long refreshMs, LongSupplier nanoTime) {
        this.listTopics = listTopics;
        this.closeable = closeable;
        this.refreshMs = refreshMs;
        this.nanoTime = nanoTime;
        refreshNow();
    }

    @Override
    public boolean hasTopic(String topic) {
        long ageMs = (nanoTime.getAsLong() - refreshedAtNanos) / 1_000_000;
        if (topics.contains(topic)) {
            if (ageMs > refreshMs) {
                refreshInBackground();
            }
            return true;
        }
        if (ageMs > MISS_REFRESH_INTERVAL_MS) {
            refreshNow();
        }
        return topics.contains(topic);
    }

    private void refreshInBackground() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        try {
            listTopics.get().whenComplete((names, e) -> {
                refreshed(names, e);
                refreshing.set(false);
            });
        } catch (RuntimeException e) {
            refreshed(null, e);
            refreshing.set(false);
        }
    }

    private synchronized void refreshNow() {
        try {
            refreshed(listTopics.get().toCompletableFuture().get(LIST_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            refreshed(null, e);
        } catch (Exception e) {
            refreshed(null, e);
        }
    }

    /**
     * Told every topic list read from now on (and the one known now), on the thread that read it: an
     * Admin client's, so the listener must not block.
     */
    public void onTopics(java.util.function.Consumer<Set<String>> listener) {
        this.listener = listener;
        listener.accept(topics);
    }

    private void refreshed(Set<String> names, Throwable failure) {
        if (failure == null) {
            topics = Set.copyOf(names);
            listener.accept(topics);
        } else {
            log.warn("could not refresh the list of declared queues (keeping {} known topics): {}", topics.size(), failure.toString());
        }
        refreshedAtNanos = nanoTime.getAsLong();
    }

    @Override
    public void close() {
        try {
            closeable.close();
        } catch (Exception e) {
            log.warn("closing the queue directory's admin client: {}", e.toString());
        }
    }
}
