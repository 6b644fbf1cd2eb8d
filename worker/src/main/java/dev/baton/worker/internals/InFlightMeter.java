package dev.baton.worker.internals;

import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.baton.metrics.BatonMetric;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code baton_worker_in_flight} for every worker sharing a registry: one gauge per registry that
 * sums their executions, since a worker id is not a label (it is per process, and Prometheus' own
 * {@code instance} label already tells processes apart). Thread-safe.
 */
public final class InFlightMeter {

    private static final Map<MeterRegistry, Set<Executions>> WORKERS = new WeakHashMap<>();

    private InFlightMeter() {
    }

    /** Counts {@code executions} in {@code meters}' gauge until {@link #remove}. */
    public static synchronized void add(MeterRegistry meters, Executions executions) {
        Set<Executions> all = WORKERS.computeIfAbsent(meters, m -> {
            Set<Executions> set = new CopyOnWriteArraySet<>();
            BatonMetric.WORKER_IN_FLIGHT.gauge(m, set, s -> s.stream().mapToInt(Executions::size).sum());
            return set;
        });
        all.add(executions);
    }

    public static synchronized void remove(MeterRegistry meters, Executions executions) {
        Set<Executions> all = WORKERS.get(meters);
        if (all != null) {
            all.remove(executions);
        }
    }
}
