package dev.baton.streams.processor;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.metrics.BatonMetric;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which queues have no live worker. Dispatches to an unserved queue wait there (state UNSERVED)
 * unless a schedule-to-start is set — loudly: a WARN once per queue each time it becomes unserved,
 * and the {@code baton_unserved_queues} gauge. Shared by every task of the instance; thread-safe.
 */
public final class QueueService {

    private static final Logger log = LoggerFactory.getLogger(QueueService.class);

    private final Map<String, Boolean> unserved = new ConcurrentHashMap<>();

    public QueueService(MeterRegistry meters) {
        BatonMetric.UNSERVED_QUEUES.gauge(meters, unserved, m -> m.values().stream().filter(b -> b).count());
    }

    /** Records what the census says about the queue now; returns whether it is served. */
    boolean observe(String queue, int liveWorkers) {
        boolean isUnserved = liveWorkers == 0;
        Boolean was = unserved.put(queue, isUnserved);
        if (isUnserved && !Boolean.TRUE.equals(was)) {
            log.warn("queue '{}' has no live worker: its activities wait (state UNSERVED) until one registers"
                    + " or their schedule-to-start passes; start one with `baton worker --queue {}`", queue, queue);
        } else if (!isUnserved && Boolean.TRUE.equals(was)) {
            log.info("queue '{}' is served again by {} worker(s)", queue, liveWorkers);
        }
        return !isUnserved;
    }

    /** Queues currently seen without a live worker. */
    public Set<String> unservedQueues() {
        Set<String> out = new TreeSet<>();
        unserved.forEach((q, u) -> {
            if (u) {
                out.add(q);
            }
        });
        return out;
    }
}
