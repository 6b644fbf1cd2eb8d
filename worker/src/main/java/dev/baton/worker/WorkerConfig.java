package dev.baton.worker;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.baton.schemas.payload.ReportLimits;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * File configuration of a worker process ({@code baton worker --config FILE}); command-line options
 * override it. Keys not defined here pass through to the Kafka clients. Code builds
 * {@link WorkerOptions} directly.
 */
public final class WorkerConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL_CONFIG = "schema.registry.url";
    public static final String WORKER_ID_CONFIG = "worker.id";
    public static final String MAX_CONCURRENT_CONFIG = "worker.max.concurrent";
    public static final String DRAIN_TIMEOUT_MS_CONFIG = "worker.drain.timeout.ms";
    public static final String REGISTRATION_INTERVAL_MS_CONFIG = "worker.registration.interval.ms";
    public static final String LEASE_MODE_CONFIG = "worker.lease.mode";
    public static final String QUEUES_CONFIG = "worker.queues";
    /** The same key, default and range as the streams app's: a deployment sets both from one value. */
    public static final String MAX_PAYLOAD_BYTES_CONFIG = "max.payload.bytes";

    public static final ConfigDef CONFIG = new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, "localhost:9092", Importance.HIGH, "Kafka bootstrap servers.")
            .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "kafka://", Importance.HIGH, "Schema registry: http(s)://, kafka:// or mem://.")
            .define(WORKER_ID_CONFIG, Type.STRING, "", Importance.MEDIUM,
                    "Stable worker id (its baton.workers key and worker-control partition); empty = random per start.")
            .define(MAX_CONCURRENT_CONFIG, Type.INT, 16, Range.atLeast(1), Importance.MEDIUM,
                    "Activities running at once; task partitions are paused when full.")
            .define(DRAIN_TIMEOUT_MS_CONFIG, Type.LONG, 30_000L, Range.atLeast(0), Importance.MEDIUM,
                    "On SIGTERM/close, how long running activities may finish before the rest are parked.")
            .define(REGISTRATION_INTERVAL_MS_CONFIG, Type.LONG, 5_000L, Range.atLeast(10), Importance.LOW,
                    "How often the worker refreshes its baton.workers registration (the census drops it after worker.stale.ms).")
            .define(QUEUES_CONFIG, Type.LIST, "", Importance.HIGH,
                    "Queues baton worker serves when no --queue is given (e.g. from BATON_WORKER_QUEUES=payments,emails).")
            .define(MAX_PAYLOAD_BYTES_CONFIG, Type.INT, ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES, Range.between(0, ReportLimits.MAX_MAX_PAYLOAD_BYTES), Importance.MEDIUM,
                    "The streams app's max.payload.bytes: set it to the same value (it is the same key, so one shared file sets both). "
                    + "A handler's output over it is reported as a terminal OutputTooLarge failure; sent, the streams app would "
                    + "dead-letter it and the activity would run again until transport-exhausted.")
            .define(LEASE_MODE_CONFIG, Type.STRING, "transactional", ConfigDef.ValidString.in("transactional", "plain"), Importance.MEDIUM,
                    "transactional: a poll batch's leases and offsets commit in one transaction, handlers start after it. plain: for a "
                    + "streams app running at-least-once; handlers start as tasks are read, offsets follow the acknowledged leases.");

    public WorkerConfig(Map<String, ?> originals) {
        super(CONFIG, originals, false);
    }

    /** The queues named by worker.queues (empty when unset). */
    public java.util.List<String> queues() {
        return getList(QUEUES_CONFIG);
    }

    /** Options pre-filled from this file; the caller adds queues and handlers. */
    public WorkerOptions.Builder toOptions() {
        Map<String, Object> kafka = new HashMap<>(originals());
        kafka.keySet().removeAll(CONFIG.names());
        kafka.put(BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS_CONFIG));
        WorkerOptions.Builder b = WorkerOptions.builder().kafkaConfig(kafka).schemaRegistryUrl(getString(SCHEMA_REGISTRY_URL_CONFIG))
                .maxConcurrent(getInt(MAX_CONCURRENT_CONFIG)).drainTimeout(Duration.ofMillis(getLong(DRAIN_TIMEOUT_MS_CONFIG)))
                .registrationInterval(Duration.ofMillis(getLong(REGISTRATION_INTERVAL_MS_CONFIG)))
                .maxPayloadBytes(getInt(MAX_PAYLOAD_BYTES_CONFIG))
                .leaseMode("plain".equals(getString(LEASE_MODE_CONFIG)) ? LeaseMode.PLAIN : LeaseMode.TRANSACTIONAL);
        if (!getString(WORKER_ID_CONFIG).isEmpty()) {
            b.workerId(getString(WORKER_ID_CONFIG));
        }
        return b;
    }
}
