package dev.baton.worker;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.internals.TypedHandlerAdapter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Immutable options of a {@link Worker}, validated at construction.
 *
 * @param kafkaConfig Kafka client settings (bootstrap servers, security)
 * @param workerId this process's id, unique among running workers (it names the lease transactions:
 *                 a second process with the same id fences the first, which then stops serving)
 * @param queues queues served; one consumer group {@code baton-worker-<queue>} each
 * @param handlers handler per activity type
 * @param maxConcurrent activities running at once; partitions are paused when full
 * @param nodeLabels labels of this node: tasks pinned to a label arrive on {@code baton.tasks.<queue>.<label>}
 * @param drainTimeout how long {@link Worker#close()} lets running activities finish before parking them
 * @param registrationInterval how often the worker refreshes its {@code baton.workers} registration
 * @param meters where the worker registers its meters
 * @param converters payload converters of typed handlers, failure details, heartbeat details and async results
 * @param maxPayloadBytes the streams app's {@code max.payload.bytes}: an output over it is reported as a
 *                        terminal {@code OutputTooLarge} failure instead of being sent (and dead-lettered there)
 */
public record WorkerOptions(Map<String, Object> kafkaConfig, String workerId, String schemaRegistryUrl, List<String> queues,
                            Map<String, ActivityHandler> handlers, int maxConcurrent, List<String> nodeLabels, Duration drainTimeout,
                            Duration registrationInterval, MeterRegistry meters, LeaseMode leaseMode, PayloadConverters converters,
                            int maxPayloadBytes) {

    public WorkerOptions {
        kafkaConfig = Map.copyOf(kafkaConfig);
        if (!kafkaConfig.containsKey("bootstrap.servers")) {
            throw new IllegalArgumentException("kafkaConfig must contain bootstrap.servers");
        }
        Objects.requireNonNull(workerId, "workerId");
        if (workerId.isBlank()) {
            throw new IllegalArgumentException("workerId must not be blank");
        }
        // Every report names the worker; the streams app dead-letters one whose worker id is longer (h/adv22w).
        if (workerId.length() > ReportLimits.MAX_ID_CHARS) {
            throw new IllegalArgumentException("workerId must have <= " + ReportLimits.MAX_ID_CHARS + " characters, had "
                    + workerId.length());
        }
        if (queues.isEmpty()) {
            throw new IllegalArgumentException("a worker must serve at least one queue, was " + queues);
        }
        queues.forEach(BatonTopics::requireQueueName);
        // Two loops of one queue share its transactional id: the second would fence the first (h/adv22w).
        for (int i = 0; i < queues.size(); i++) {
            if (queues.indexOf(queues.get(i)) != i) {
                throw new IllegalArgumentException("queues must be distinct, '" + queues.get(i) + "' is named twice in " + queues);
            }
        }
        queues = List.copyOf(queues);
        nodeLabels.forEach(BatonTopics::requireQueueName);
        nodeLabels = List.copyOf(nodeLabels);
        handlers = Map.copyOf(handlers);
        if (handlers.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one handler");
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent must be >= 1, was " + maxConcurrent);
        }
        if (drainTimeout.isNegative()) {
            throw new IllegalArgumentException("drainTimeout must be >= 0, was " + drainTimeout);
        }
        Objects.requireNonNull(leaseMode, "leaseMode");
        Objects.requireNonNull(converters, "converters");
        if (maxPayloadBytes < 0 || maxPayloadBytes > ReportLimits.MAX_MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("maxPayloadBytes must be >= 0 and <= " + ReportLimits.MAX_MAX_PAYLOAD_BYTES
                    + " (the streams app's largest max.payload.bytes), was " + maxPayloadBytes);
        }
        if (registrationInterval.toMillis() < 10) {
            throw new IllegalArgumentException("registrationInterval must be >= 10 ms, was " + registrationInterval);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link WorkerOptions}; every option but bootstrap servers, queues and handlers has a default. */
    public static final class Builder {
        private final Map<String, Object> kafkaConfig = new HashMap<>();
        private String workerId = "worker-" + UUID.randomUUID().toString().substring(0, 8);
        private String schemaRegistryUrl = "kafka://";
        private List<String> queues = List.of();
        private final Map<String, ActivityHandler> handlers = new HashMap<>();
        private int maxConcurrent = 16;
        private List<String> nodeLabels = List.of();
        private Duration drainTimeout = Duration.ofSeconds(30);
        private Duration registrationInterval = Duration.ofSeconds(5);
        private MeterRegistry meters = new SimpleMeterRegistry();
        private LeaseMode leaseMode = LeaseMode.TRANSACTIONAL;
        private final Map<String, TypedRegistration<?>> typedHandlers = new HashMap<>();
        private PayloadConverters converters = PayloadConverters.defaults();
        private int maxPayloadBytes = ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES;

        /**
         * The streams app's {@code max.payload.bytes} (default {@value ReportLimits#DEFAULT_MAX_PAYLOAD_BYTES}):
         * set it to the streams app's value wherever that was changed, or outputs between the two limits
         * are refused by one side and not the other.
         */
        public Builder maxPayloadBytes(int bytes) {
            this.maxPayloadBytes = bytes;
            return this;
        }

        /** How leases are recorded: {@link LeaseMode#PLAIN} for a streams app running at-least-once. */
        public Builder leaseMode(LeaseMode mode) {
            this.leaseMode = mode;
            return this;
        }

        /** Where the worker's meters go (its in-flight gauge and lease counter); a private registry by default. */
        public Builder meters(MeterRegistry registry) {
            this.meters = registry;
            return this;
        }

        public Builder bootstrapServers(String servers) {
            kafkaConfig.put("bootstrap.servers", servers);
            return this;
        }

        public Builder kafkaConfig(Map<String, ?> config) {
            kafkaConfig.putAll(config);
            return this;
        }

        public Builder workerId(String id) {
            this.workerId = id;
            return this;
        }

        public Builder schemaRegistryUrl(String url) {
            this.schemaRegistryUrl = url;
            return this;
        }

        public Builder queues(String... queues) {
            this.queues = List.of(queues);
            return this;
        }

        public Builder queues(List<String> queues) {
            this.queues = List.copyOf(queues);
            return this;
        }

        public Builder handler(String activityType, ActivityHandler handler) {
            Objects.requireNonNull(activityType, "activityType");
            Objects.requireNonNull(handler, () -> "handler for activity type '" + activityType + "'");
            typedHandlers.remove(activityType);
            handlers.put(activityType, handler);
            return this;
        }

        /**
         * A typed handler: its input is read as {@code inputType} by the converter of the task's content
         * type, its output written by the converter of the returned value's class (see
         * {@link #payloadConverters}). A later registration of the same activity type replaces it.
         */
        public <I> Builder handler(String activityType, Class<I> inputType, TypedActivityHandler<I, ?> handler) {
            Objects.requireNonNull(activityType, "activityType");
            Objects.requireNonNull(handler, () -> "handler for activity type '" + activityType + "'");
            handlers.remove(activityType);
            typedHandlers.put(activityType, new TypedRegistration<>(inputType, handler));
            return this;
        }

        /**
         * The converters of typed handlers, failure details, typed heartbeat details and async results
         * ({@link PayloadConverters#defaults()}: raw bytes, Avro records, JSON).
         */
        public Builder payloadConverters(PayloadConverters converters) {
            this.converters = Objects.requireNonNull(converters, "converters");
            return this;
        }

        public Builder maxConcurrent(int n) {
            this.maxConcurrent = n;
            return this;
        }

        public Builder nodeLabels(String... labels) {
            this.nodeLabels = List.of(labels);
            return this;
        }

        public Builder drainTimeout(Duration d) {
            this.drainTimeout = d;
            return this;
        }

        public Builder registrationInterval(Duration d) {
            this.registrationInterval = d;
            return this;
        }

        public WorkerOptions build() {
            Map<String, ActivityHandler> all = new HashMap<>(handlers);
            typedHandlers.forEach((type, typed) -> all.put(type, typed.adapter(type, converters)));
            return new WorkerOptions(kafkaConfig, workerId, schemaRegistryUrl, queues, all, maxConcurrent, nodeLabels,
                    drainTimeout, registrationInterval, meters, leaseMode, converters, maxPayloadBytes);
        }

        private record TypedRegistration<I>(Class<I> inputType, TypedActivityHandler<I, ?> handler) {
            TypedRegistration {
                Objects.requireNonNull(inputType, "inputType");
                Objects.requireNonNull(handler, "handler");
            }

            ActivityHandler adapter(String activityType, PayloadConverters converters) {
                return new TypedHandlerAdapter<>(activityType, inputType, handler, converters);
            }
        }
    }
}
