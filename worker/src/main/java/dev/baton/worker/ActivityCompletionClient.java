package dev.baton.worker;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.internals.Completer;
import dev.baton.worker.internals.ControlListener;
import dev.baton.worker.internals.EventSender;
import dev.baton.worker.internals.Executions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Completes, fails or heartbeats a generation another process handed off
 * ({@link ActivityContext#completeLater()}), by the text of its {@link CompletionRef} ({@link AsyncCompletion#token()}).
 *
 * <pre>{@code
 * try (ActivityCompletionClient client = ActivityCompletionClient.create(Map.of("bootstrap.servers", servers), "kafka://")) {
 *     client.complete(token, new Receipt("r-1")).get();
 * }
 * }</pre>
 *
 * <p>Fenced like any completion: a report is accepted only while its token is the site's current
 * one, so a reference whose generation was lost (no heartbeat within the window), parked, superseded
 * or already ended is refused by the streams app (history {@code COMPLETION_REFUSED}, or relayed to
 * the outbox flagged unmatched if the run had ended). The returned futures say that the broker has
 * the report, not that it was accepted. Needs the worker's write access to {@code baton.worker-events}.
 * Thread-safe.
 *
 * <p><b>Stops.</b> When Baton refuses a report of this client's (the generation was cancelled,
 * superseded, timed out or lost), it tells the sender to stop that generation, on
 * {@code baton.worker-control} under this client's own sender id, which the client reads. From then
 * on {@link #isStopped} is true for the token and {@link #heartbeat} throws
 * {@link ActivityStoppedException} instead of sending, as Temporal's heartbeat reports a
 * cancellation: a process working on a long activity heartbeats, and the heartbeat after the one Baton
 * refused tells it to stop. Needs read access to {@code baton.worker-control}, like a worker's.
 */
public final class ActivityCompletionClient implements AutoCloseable {

    /** Longest wait, before the first heartbeat, for the stop reader to be in place (so no stop is missed). */
    private static final Duration STOPS_READY = Duration.ofSeconds(30);

    private final SchemaRegistry registry;
    private final EventSender events;
    private final Completer completer;
    /** The stops this client was told of (fingerprints only; no run is held here). */
    private final Executions stops = new Executions();
    private final ControlListener stopReader;

    private ActivityCompletionClient(Map<String, Object> kafkaConfig, String schemaRegistryUrl, PayloadConverters converters) {
        ReportLimits limits = new ReportLimits(maxPayloadBytes(kafkaConfig.remove(WorkerConfig.MAX_PAYLOAD_BYTES_CONFIG)));
        this.registry = SchemaRegistry.forUrl(schemaRegistryUrl, kafkaConfig);
        // Reports name their sender like a worker's; a refused one's stop goes to this name, which nothing serves.
        String sender = "completion-client-" + UUID.randomUUID().toString().substring(0, 8);
        this.events = new EventSender(kafkaConfig, EventSerde.of(WorkerEvent.class, registry), sender, Clock.systemUTC(), limits);
        this.completer = new Completer(events, converters, stops);
        this.stopReader = new ControlListener(sender, kafkaConfig, EventSerde.of(WorkerControl.class, registry), stops,
                new ClientMeters(new SimpleMeterRegistry()));
        Thread reader = new Thread(stopReader, "baton-stops " + sender);
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code max.payload.bytes} as given (a number or its text), the streams app's default when absent. */
    private static int maxPayloadBytes(Object configured) {
        if (configured == null) {
            return ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES;
        }
        int parsed = (Integer) ConfigDef.parseType(WorkerConfig.MAX_PAYLOAD_BYTES_CONFIG, configured, ConfigDef.Type.INT);
        if (parsed < 0 || parsed > ReportLimits.MAX_MAX_PAYLOAD_BYTES) { // the worker config's range (h/adv22w)
            throw new IllegalArgumentException(WorkerConfig.MAX_PAYLOAD_BYTES_CONFIG + " must be >= 0 and <= "
                    + ReportLimits.MAX_MAX_PAYLOAD_BYTES + " (the streams app's largest), was " + parsed);
        }
        return parsed;
    }

    /**
     * A client on {@code kafkaConfig} (bootstrap servers, security) with the default payload converters.
     * {@code kafkaConfig} may hold {@code max.payload.bytes}, the streams app's (and the worker's) key: set
     * it wherever the streams app's differs from the default, so outputs are checked against the same limit.
     */
    public static ActivityCompletionClient create(Map<String, ?> kafkaConfig, String schemaRegistryUrl) {
        return create(kafkaConfig, schemaRegistryUrl, PayloadConverters.defaults());
    }

    public static ActivityCompletionClient create(Map<String, ?> kafkaConfig, String schemaRegistryUrl, PayloadConverters converters) {
        if (!kafkaConfig.containsKey("bootstrap.servers")) {
            throw new IllegalArgumentException("kafkaConfig must contain bootstrap.servers, had " + kafkaConfig.keySet());
        }
        return new ActivityCompletionClient(new HashMap<>(kafkaConfig), Objects.requireNonNull(schemaRegistryUrl, "schemaRegistryUrl"),
                Objects.requireNonNull(converters, "converters"));
    }

    /**
     * Completes with {@code result} ({@code byte[]} as raw bytes, otherwise encoded by the converters).
     *
     * @throws IllegalArgumentException if {@code token} is not a completion reference, or the output is
     *         over {@code max.payload.bytes} (this client's, see {@link #create}; named with the size; nothing is sent)
     */
    public CompletableFuture<Void> complete(String token, Object result) {
        return completer.complete(CompletionRef.parse(token), result);
    }

    /** Fails as a handler throwing {@code failure} would: its reason, type, details, stack and causes. */
    public CompletableFuture<Void> fail(String token, Throwable failure) {
        return completer.fail(CompletionRef.parse(token), failure);
    }

    /**
     * Fails with an explicit reason ({@code retryable:} or {@code terminal:}; none reads as {@code retryable:}) and
     * structured failure (may be null).
     *
     * @throws IllegalArgumentException for a reason or failure over the streams app's limits, or a reason with one of
     *         Baton's own prefixes ({@code lost:}, {@code superseded:}, ...): named; nothing is sent
     */
    public CompletableFuture<Void> fail(String token, String reason, ActivityFailure failure) {
        return completer.fail(CompletionRef.parse(token), reason, failure);
    }

    /**
     * Keeps the lease alive; {@code details} (may be null) become the run's checkpoint.
     *
     * @throws ActivityStoppedException once Baton told this client to stop that generation (a report
     *         of it was refused: cancelled, superseded, timed out or lost); nothing is sent, and the work
     *         should stop
     * @throws IllegalArgumentException for details over their limit (named with the size; nothing is sent)
     */
    public CompletableFuture<Void> heartbeat(String token, Object details) {
        CompletionRef ref = CompletionRef.parse(token);
        awaitStopReader();
        if (completer.stopped(ref)) {
            throw new ActivityStoppedException(ref);
        }
        return completer.heartbeat(ref, details);
    }

    /**
     * Whether Baton told this client to stop the generation of {@code token}: true after a report of
     * it was refused (see {@link #heartbeat}). A hint: false until the stop arrived.
     */
    public boolean isStopped(String token) {
        return completer.stopped(CompletionRef.parse(token));
    }

    /** Stops are read from the end of the partition: a report sent before the reader is in place could have its stop missed. */
    private void awaitStopReader() {
        try {
            stopReader.awaitPositioned(STOPS_READY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stopReader.stop();
        events.close();
        registry.close();
    }
}
