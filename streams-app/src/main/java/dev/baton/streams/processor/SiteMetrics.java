package dev.baton.streams.processor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.events.OutcomeStatus;
import dev.baton.events.store.SiteState;
import dev.baton.metrics.BatonMetric;
import dev.baton.schemas.Reasons;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counters of the site state machine's decisions. */
public final class SiteMetrics {

    private final MeterRegistry registry;
    private final Counter dispatched;
    private final Counter refused;
    private final Counter unmatched;
    private final Counter deadLettered;
    private final Counter transportLosses;
    private final Counter parks;
    private final Counter reprocessed;
    /** One counter per label set, found without building a meter id on every outcome. */
    private final Map<OutcomeLabels, Counter> outcomes = new ConcurrentHashMap<>();

    public SiteMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.dispatched = BatonMetric.DISPATCHES.counter(registry);
        this.refused = BatonMetric.REFUSED_COMPLETIONS.counter(registry);
        this.unmatched = BatonMetric.UNMATCHED_COMPLETIONS.counter(registry);
        this.deadLettered = BatonMetric.DEAD_LETTERS.counter(registry, "component", "streams-app");
        this.transportLosses = BatonMetric.TRANSPORT_LOSSES.counter(registry);
        this.parks = BatonMetric.PARKS.counter(registry);
        this.reprocessed = BatonMetric.REPROCESSED.counter(registry);
    }

    void dispatched() {
        dispatched.increment();
    }

    /** Counts an outcome of {@code site}'s run, labelled with its queue and activity type. */
    void resolved(SiteState site, OutcomeStatus status, String reason) {
        String prefix = status == OutcomeStatus.COMPLETED ? "completed" : Reasons.prefixOf(reason).replace(":", "");
        OutcomeLabels labels = new OutcomeLabels(prefix.isEmpty() ? "other" : prefix, site.getQueue(), site.getActivityType());
        outcomes.computeIfAbsent(labels, l -> BatonMetric.OUTCOMES.counter(registry, "kind", l.kind(), "queue", l.queue(),
                "activity_type", l.activityType())).increment();
    }

    private record OutcomeLabels(String kind, String queue, String activityType) { }

    void refused() {
        refused.increment();
    }

    void unmatched() {
        unmatched.increment();
    }

    void deadLettered() {
        deadLettered.increment();
    }

    void transportLost() {
        transportLosses.increment();
    }

    void parked() {
        parks.increment();
    }

    void reprocessed() {
        reprocessed.increment();
    }
}
