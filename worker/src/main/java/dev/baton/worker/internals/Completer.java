package dev.baton.worker.internals;

import java.util.concurrent.CompletableFuture;

import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.Reasons;
import dev.baton.worker.CompletionRef;

/**
 * Reports on a generation by its {@link CompletionRef}, from any thread: what an async completion
 * and the completion client share. Values are encoded by the converters; the future completes when
 * the broker has the report (the streams app then accepts it only if the token is still current).
 */
public final class Completer {

    private final EventSender events;
    private final PayloadConverters converters;
    /** The worker's executions (the stops it has seen), or null for a completion client. */
    private final Executions executions;

    public Completer(EventSender events, PayloadConverters converters) {
        this(events, converters, null);
    }

    /** On a worker: its handles can tell whether a stop for their generation reached it. */
    public Completer(EventSender events, PayloadConverters converters, Executions executions) {
        this.events = events;
        this.converters = converters;
        this.executions = executions;
    }

    /** Whether the worker was told to stop {@code ref}'s generation. */
    public boolean stopped(CompletionRef ref) {
        return executions != null && executions.stopSeen(ref.token());
    }

    public CompletableFuture<Void> complete(CompletionRef ref, Object result) {
        return events.report(ref, WorkerEventKind.COMPLETED, converters.encode(result), null, null, null);
    }

    /** Fails with {@code thrown} read as a handler's exception would be: its reason, type, details, stack and causes. */
    public CompletableFuture<Void> fail(CompletionRef ref, Throwable thrown) {
        return fail(ref, Failures.reason(thrown), Failures.failure(thrown, converters));
    }

    /** Fails with an explicit reason (a vocabulary prefix, else read as {@code retryable:}) and failure. */
    public CompletableFuture<Void> fail(CompletionRef ref, String reason, ActivityFailure failure) {
        String normalized = Reasons.normalize(reason);
        if (!normalized.startsWith(Reasons.RETRYABLE) && !normalized.startsWith(Reasons.TERMINAL)) {
            // lost:, superseded:, cancelled:, unavailable: and transport-exhausted: are Baton's verdicts; sent by a holder
            // they resolved its site with a verdict Baton never reached (h/adv22w).
            throw new IllegalArgumentException("a failure reason must start with " + Reasons.RETRYABLE + " or " + Reasons.TERMINAL
                    + " (or have no prefix, read as " + Reasons.RETRYABLE + "); the other prefixes are Baton's own, was '"
                    + (normalized.length() <= 200 ? normalized : normalized.substring(0, 200) + "...") + "'");
        }
        return events.report(ref, WorkerEventKind.FAILED, null, normalized, failure, null);
    }

    public CompletableFuture<Void> heartbeat(CompletionRef ref, Object details) {
        return events.report(ref, WorkerEventKind.HEARTBEAT, null, null, null, details == null ? null : converters.encode(details));
    }
}
