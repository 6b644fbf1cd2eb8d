package dev.baton.worker;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.baton.events.WorkerEvent;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.internals.Completer;
import dev.baton.worker.internals.EventSender;

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
 */
public final class ActivityCompletionClient implements AutoCloseable {

    private final SchemaRegistry registry;
    private final EventSender events;
    private final Completer completer;

    private ActivityCompletionClient(Map<String, Object> kafkaConfig, String schemaRegistryUrl, PayloadConverters converters) {
        this.registry = SchemaRegistry.forUrl(schemaRegistryUrl, kafkaConfig);
        // Reports name their sender like a worker's; a refused one's stop goes to this name, which nothing serves.
        String sender = "completion-client-" + UUID.randomUUID().toString().substring(0, 8);
        this.events = new EventSender(kafkaConfig, EventSerde.of(WorkerEvent.class, registry), sender, Clock.systemUTC());
        this.completer = new Completer(events, converters);
    }

    /** A client on {@code kafkaConfig} (bootstrap servers, security) with the default payload converters. */
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
     *         over {@code max.payload.bytes} (named with the size; nothing is sent)
     */
    public CompletableFuture<Void> complete(String token, Object result) {
        return completer.complete(CompletionRef.parse(token), result);
    }

    /** Fails as a handler throwing {@code failure} would: its reason, type, details, stack and causes. */
    public CompletableFuture<Void> fail(String token, Throwable failure) {
        return completer.fail(CompletionRef.parse(token), failure);
    }

    /**
     * Fails with an explicit reason (vocabulary prefix; none reads as {@code retryable:}) and structured failure (may be null).
     *
     * @throws IllegalArgumentException for a reason or failure over the streams app's limits (named; nothing is sent)
     */
    public CompletableFuture<Void> fail(String token, String reason, ActivityFailure failure) {
        return completer.fail(CompletionRef.parse(token), reason, failure);
    }

    /**
     * Keeps the lease alive; {@code details} (may be null) become the run's checkpoint.
     *
     * @throws IllegalArgumentException for details over their limit (named with the size; nothing is sent)
     */
    public CompletableFuture<Void> heartbeat(String token, Object details) {
        return completer.heartbeat(CompletionRef.parse(token), details);
    }

    @Override
    public void close() {
        events.close();
        registry.close();
    }
}
