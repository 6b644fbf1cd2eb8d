package dev.baton.metrics;

import java.time.Duration;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The catalog of every {@code baton_*} meter: name, description, type and tag keys. Components
 * register meters only through it, and a test checks that what a running cluster registers and
 * what this catalog lists are the same set.
 */
public enum BatonMetric {

    DISPATCHES("baton_dispatches", Type.COUNTER, "Attempts started by the streams app"),
    OUTCOMES("baton_outcomes", Type.COUNTER, "Outcomes published, by kind (completed or the reason prefix), queue and activity type",
            "kind", "queue", "activity_type"),
    REFUSED_COMPLETIONS("baton_refused_completions", Type.COUNTER, "Worker events refused because their token was not current"),
    UNMATCHED_COMPLETIONS("baton_unmatched_completions", Type.COUNTER, "Late completions of resolved sites, with a token the site issued, relayed to the outbox (baton.results, flagged unmatched)"),
    TRANSPORT_LOSSES("baton_transport_losses", Type.COUNTER, "Leases whose heartbeat deadline passed"),
    PARKS("baton_parks", Type.COUNTER, "Generations given back by draining workers"),
    REPROCESSED("baton_reprocessed_records", Type.COUNTER, "Input records found already applied to their site (at-least-once restarts); their outputs were re-emitted"),
    DEAD_LETTERS("baton_dead_letters", Type.COUNTER, "Records sent to baton.dlq", "component"),
    UNSERVED_QUEUES("baton_unserved_queues", Type.GAUGE, "Queues with dispatched work and no live worker"),
    QUEUE_LAG("baton_queue_lag", Type.GAUGE, "Tasks of a queue not yet taken: end offsets of its task topic minus its worker group's committed offsets, "
            + "sampled by the streams app", "queue"),
    WORKER_IN_FLIGHT("baton_worker_in_flight", Type.GAUGE, "Executions the workers of this process hold (leased, queued or running)"),
    WORKER_LEASES("baton_worker_leases", Type.COUNTER, "Tasks leased by the workers of this process", "queue"),
    HANDLER_DURATION("baton_handler_duration", Type.TIMER, "Time a worker's handler ran, by activity type and how it ended "
            + "(completed, or the reason prefix of its failure)", "activity_type", "result"),
    DISPATCH_LATENCY("baton_dispatch_latency", Type.TIMER, "Time from dispatch to outcome, seen by the dispatcher"),
    BUILD_INFO("baton_build_info", Type.INFO, "Always 1; the labels name the build and runtime of this process", "version", "kafka_clients", "java"),
    MORSEL_WORKERS_ACTIVE("baton_morsel_workers_active", Type.GAUGE, "Morsel workers running a pipeline now"),
    MORSEL_THROUGHPUT("baton_morsel_throughput_rows_per_second", Type.GAUGE, "Rows per second of the last completed pipeline"),
    MORSEL_MORSELS("baton_morsel_morsels", Type.COUNTER, "Morsels processed"),
    MORSEL_ROWS("baton_morsel_rows", Type.COUNTER, "Rows scanned by morsel tasks"),
    MORSEL_EXCHANGE_SPILLED("baton_morsel_exchange_spilled_groups", Type.COUNTER,
            "Partial groups an engine node sent to another exchange partition than their key's because that one was hot");

    /**
     * Bucket bounds of every timer: Prometheus histograms (aggregatable over instances, unlike
     * summaries' quantiles), from the streams app's commit-bound latencies to hour-long activities.
     */
    static final Duration[] TIMER_BUCKETS = {
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(30),
        Duration.ofHours(2)};

    /**
     * Type of a catalog entry: a Micrometer meter, or {@code INFO}, a Prometheus info metric (constant 1,
     * its labels are the facts) that each process's exporter registers itself, since Micrometer has no
     * such meter and its Prometheus naming would strip the {@code _info} suffix of a gauge.
     */
    public enum Type { COUNTER, GAUGE, TIMER, INFO }

    private final String meterName;
    private final Type type;
    private final String description;
    private final List<String> tagKeys;

    BatonMetric(String meterName, Type type, String description, String... tagKeys) {
        this.meterName = meterName;
        this.type = type;
        this.description = description;
        this.tagKeys = List.of(tagKeys);
    }

    public String meterName() {
        return meterName;
    }

    public Type type() {
        return type;
    }

    public String description() {
        return description;
    }

    public List<String> tagKeys() {
        return tagKeys;
    }

    /** Registers (or finds) this counter; {@code tags} are key/value pairs of {@link #tagKeys()}. */
    public Counter counter(MeterRegistry registry, String... tags) {
        require(Type.COUNTER, tags);
        return Counter.builder(meterName).description(description).tags(tags).register(registry);
    }

    public <T> Gauge gauge(MeterRegistry registry, T state, ToDoubleFunction<T> value, String... tags) {
        require(Type.GAUGE, tags);
        return Gauge.builder(meterName, state, value).description(description).tags(tags).register(registry);
    }

    public Timer timer(MeterRegistry registry, String... tags) {
        require(Type.TIMER, tags);
        // Buckets only: no client-side percentiles, which Prometheus would get as a summary.
        return Timer.builder(meterName).description(description).tags(tags).serviceLevelObjectives(TIMER_BUCKETS)
                .minimumExpectedValue(TIMER_BUCKETS[0]).maximumExpectedValue(TIMER_BUCKETS[TIMER_BUCKETS.length - 1]).register(registry);
    }

    public static BatonMetric byMeterName(String name) {
        for (BatonMetric m : values()) {
            if (m.meterName.equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("no catalog entry for meter '" + name + "'");
    }

    private void require(Type expected, String[] tags) {
        if (type != expected) {
            throw new IllegalStateException(meterName + " is a " + type + ", not a " + expected);
        }
        if (tags.length != tagKeys.size() * 2) {
            throw new IllegalArgumentException(meterName + " takes tags " + tagKeys + ", got " + tags.length / 2 + " pairs");
        }
        for (int i = 0; i < tags.length; i += 2) {
            if (!tagKeys.contains(tags[i])) {
                throw new IllegalArgumentException(meterName + " takes tags " + tagKeys + ", not '" + tags[i] + "'");
            }
        }
    }
}
