package dev.baton.worker;

import java.util.concurrent.CompletableFuture;

/**
 * A generation its handler will complete later ({@link ActivityContext#completeLater()}): once the
 * handler returns, the worker reports nothing for it, frees its slot and stops heartbeating it.
 * Complete or fail it from any thread through this handle, or from another process with
 * {@link ActivityCompletionClient} and {@link #token()}.
 *
 * <p>The holder keeps the lease alive: without a {@link #heartbeat} within the activity's heartbeat
 * window, Baton declares the generation lost and re-delivers the attempt, and this handle's token is
 * refused from then on (like any stale token). Each call returns when the broker has the report;
 * whether Baton accepts it is decided by the token alone (see history {@code COMPLETION_REFUSED}).
 * Thread-safe. This handle sends through its worker: after the worker closed, use
 * {@link ActivityCompletionClient}.
 */
public interface AsyncCompletion {

    /** The generation's reference, as text for another process ({@link CompletionRef#render()}). */
    default String token() {
        return ref().render();
    }

    CompletionRef ref();

    /** Completes with {@code result}, encoded by the worker's payload converters ({@code byte[]} as raw bytes). */
    CompletableFuture<Void> complete(Object result);

    /** Fails as if the handler had thrown {@code failure}: same reason, type, details, stack and causes. */
    CompletableFuture<Void> fail(Throwable failure);

    /** Keeps the lease alive; {@code details} (may be null) become the checkpoint the next generation or attempt resumes from. */
    CompletableFuture<Void> heartbeat(Object details);
}
