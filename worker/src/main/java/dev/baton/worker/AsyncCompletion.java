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

    /**
     * Completes with {@code result}, encoded by the worker's payload converters ({@code byte[]} as raw bytes).
     *
     * @throws IllegalArgumentException naming {@code max.payload.bytes} and the size, for an output over it (nothing is sent)
     */
    CompletableFuture<Void> complete(Object result);

    /**
     * Fails as if the handler had thrown {@code failure}: same reason, type, details, stack and causes.
     * A reason or details over the streams app's limits are cut or left out, as for a handler's exception.
     */
    CompletableFuture<Void> fail(Throwable failure);

    /**
     * Keeps the lease alive; {@code details} (may be null) become the checkpoint the next generation or attempt resumes from.
     *
     * @throws IllegalArgumentException naming the limit and the size, for details over the streams app's limit (nothing is sent)
     */
    CompletableFuture<Void> heartbeat(Object details);

    /**
     * Whether Baton told this handle's worker to stop the generation (cancelled, superseded, timed
     * out, taken over): its reports will be refused, so the work can stop. A hint, not a guarantee:
     * false until the stop reached the worker, and always false on a handle whose worker closed.
     */
    boolean isStopped();
}
