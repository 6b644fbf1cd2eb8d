package dev.baton.streams.processor;

import dev.baton.events.OutcomeStatus;
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

    public SiteMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.dispatched = Counter.builder("baton_dispatches").description("Attempts started by the streams app").register(registry);
        this.refused = Counter.builder("baton_refused_completions").description("Worker events refused for a token that is not current").register(registry);
        this.unmatched = Counter.builder("baton_unmatched_completions").description("Completions for unknown or resolved sites, sent to the outbox").register(registry);
        this.deadLettered = Counter.builder("baton_dead_letters").description("Records sent to baton.dlq").tag("component", "streams-app").register(registry);
        this.transportLosses = Counter.builder("baton_transport_losses").description("Leases whose heartbeat deadline passed").register(registry);
        this.parks = Counter.builder("baton_parks").description("Generations given back by draining workers").register(registry);
    }

    void dispatched() {
        dispatched.increment();
    }

    void resolved(OutcomeStatus status, String reason) {
        String prefix = status == OutcomeStatus.COMPLETED ? "completed" : Reasons.prefixOf(reason).replace(":", "");
        Counter.builder("baton_outcomes").description("Outcomes published, by reason prefix")
                .tag("kind", prefix.isEmpty() ? "other" : prefix).register(registry).increment();
    }

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
}
