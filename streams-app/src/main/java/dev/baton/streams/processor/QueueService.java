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

    /**
     * Records what the census says about the queue, or a node of it (when {@code node} is not null),
     * now; returns whether it is served. A node is listed as {@code queue/node}.
     */
    boolean observe(String queue, String node, int liveWorkers) {
        boolean isUnserved = liveWorkers == 0;
        String name = node == null ? queue : queue + "/" + node;
        Boolean was = unserved.put(name, isUnserved);
        if (isUnserved && !Boolean.TRUE.equals(was)) {
            String start = node == null ? "`baton worker --queue " + queue + "`" : "`baton worker --queue " + queue + " --node-label " + node + "`";
            log.warn("{} '{}' has no live worker: its activities wait (state UNSERVED) until one registers"
                    + " or their schedule-to-start passes; start one with {}", node == null ? "queue" : "node", name, start);
        } else if (!isUnserved && Boolean.TRUE.equals(was)) {
            log.info("'{}' is served again by {} worker(s)", name, liveWorkers);
        }
        return !isUnserved;
    }

    /** Queues (and {@code queue/node} pins) currently seen without a live worker. */
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
