package dev.baton.dispatcher.internals;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.PendingLimitExceededException;

/**
 * Futures waiting for outcomes, by request id. Bounded: a client cannot grow it without limit. Once
 * {@linkplain #close closed} it holds no future: each waiting one has failed and later registrations
 * are refused, so no caller is left waiting for an outcome nobody will deliver.
 *
 * <p>The future held is the one the caller gets ({@link Waiting}, a {@link CallbackFuture}): it leaves the set
 * however it completes (its outcome, a failure, its timeout, the caller's cancel). A dispatch used to hold three
 * futures, two stages and two lambdas until its outcome; with ~100,000 dispatches waiting, every young collection copied
 * them (docs/decisions.md, "A waiting dispatch is one future").
 */
public final class PendingResults {

    private static final VarHandle LEFT;

    static {
        try {
            LEFT = MethodHandles.lookup().findVarHandle(Waiting.class, "left", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Fails dispatches that waited {@code dispatch.timeout.ms}; one daemon thread for every client, as the JDK's orTimeout has. */
    private static final ScheduledThreadPoolExecutor TIMEOUTS = timeouts();

    /** By {@link #keyOf} the request id: most are this client's own, kept as their low half, not as their string. */
    private final Map<Object, Waiting> byRequestId = new ConcurrentHashMap<>();
    private final RequestIds ids;
    private final int max;
    private final long timeoutMs;
    private final Executor callbacks;
    private final LongConsumer resolvedAfterNanos;
    private volatile Function<String, ? extends RuntimeException> refusal;

    /**
     * @param timeoutMs how long a future waits before it fails with {@link TimeoutException}; 0 for no limit
     * @param callbacks where the stages callers attach run ({@link CallbackFuture})
     * @param resolvedAfterNanos told how long each future waited, once, when it completes
     * @param ids the client's request ids, whose own form keys a waiting future more compactly than its string
     */
    public PendingResults(int max, long timeoutMs, Executor callbacks, LongConsumer resolvedAfterNanos, RequestIds ids) {
        this.ids = ids;
        this.max = max;
        this.timeoutMs = timeoutMs;
        this.callbacks = callbacks;
        this.resolvedAfterNanos = resolvedAfterNanos;
    }

    /** Without a timeout; the stages callers attach run on the thread that completes the future. */
    public PendingResults(int max) {
        this(max, 0, Runnable::run, nanos -> { }, new RequestIds());
    }

    /** A future for the request's outcome; throws the close cause for this request id once closed. */
    public CompletableFuture<ActivityOutcome> register(String requestId) {
        if (byRequestId.size() >= max) {
            throw new PendingLimitExceededException("max.pending is " + max + " and " + byRequestId.size()
                    + " dispatches are waiting; retry when some resolve or raise max.pending");
        }
        Waiting future = new Waiting(keyOf(requestId));
        byRequestId.put(future.key, future);
        if (timeoutMs > 0) {
            // After the put: a timeout that fired before it would leave a failed future in the set, holding its slot.
            ScheduledFuture<?> timeout = TIMEOUTS.schedule(() -> future.completeExceptionally(new TimeoutException("request "
                    + future.requestId() + ": no outcome within dispatch.timeout.ms=" + timeoutMs)), timeoutMs, TimeUnit.MILLISECONDS);
            future.timeout = timeout;
            if (future.left) {
                timeout.cancel(false); // it left before the field was set, so its leaving did not cancel this
            }
        }
        // Checked after the put: a close running meanwhile may miss this future, but then this check sees
        // the close (each side writes before it reads the other's state), so the future fails here.
        Function<String, ? extends RuntimeException> closedWith = refusal;
        if (closedWith != null) {
            RuntimeException refused = closedWith.apply(requestId);
            fail(requestId, refused);
            throw refused;
        }
        return future;
    }

    /** Completes the waiting future; false if none waits for this request id. */
    public boolean complete(String requestId, ActivityOutcome outcome) {
        Waiting future = byRequestId.remove(keyOf(requestId));
        return future != null && future.complete(outcome);
    }

    public void fail(String requestId, Throwable cause) {
        Waiting future = byRequestId.remove(keyOf(requestId));
        if (future != null) {
            future.completeExceptionally(cause);
        }
    }

    /** Fails every waiting future with the exception made for its request id. */
    public int failAll(Function<String, Throwable> cause) {
        int n = 0;
        for (Waiting future : List.copyOf(byRequestId.values())) {
            if (future.completeExceptionally(cause.apply(future.requestId()))) {
                n++;
            }
        }
        return n;
    }

    /**
     * Fails every waiting future with the exception made for its request id and refuses every later
     * {@link #register} with it. Only the first close counts; returns how many futures it failed.
     */
    public synchronized int close(Function<String, ? extends RuntimeException> cause) {
        if (refusal != null) {
            return 0;
        }
        refusal = cause;
        return failAll(cause::apply);
    }

    public int size() {
        return byRequestId.size();
    }

    /** Equal for two request ids exactly when they are equal strings ({@link RequestIds#lowOf}). */
    private Object keyOf(String requestId) {
        Long low = ids.lowOf(requestId);
        return low != null ? low : requestId;
    }

    /** Called once by a future as it completes, whichever way. */
    private void left(Waiting future) {
        byRequestId.remove(future.key, future);
        ScheduledFuture<?> timeout = future.timeout;
        if (timeout != null) {
            timeout.cancel(false);
        }
        resolvedAfterNanos.accept(System.nanoTime() - future.registeredAtNanos);
    }

    private static ScheduledThreadPoolExecutor timeouts() {
        ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "baton-dispatch-timeouts");
            t.setDaemon(true);
            return t;
        });
        timeouts.setRemoveOnCancelPolicy(true); // a dispatch answered in time leaves nothing queued for the timeout's length
        return timeouts;
    }

    /**
     * A dispatch's future as its caller gets it, waiting in this set. Its completions are overridden only to leave the set,
     * once: {@code complete} by the outcome, {@code completeExceptionally} by a failure, a close or the timeout, {@code cancel}
     * by the caller (whose later outcome then goes to the unmatched handler, as a timed-out one does), and the caller's
     * {@code obtrude*} and {@code completeAsync}.
     */
    private final class Waiting extends CallbackFuture<ActivityOutcome> {
        private final Object key;
        private final long registeredAtNanos = System.nanoTime();
        private volatile ScheduledFuture<?> timeout;
        /** Set once, by the completion that takes the future out of the set. */
        private volatile boolean left;

        Waiting(Object key) {
            super(callbacks);
            this.key = key;
        }

        String requestId() {
            return key instanceof Long low ? ids.format(low) : (String) key;
        }

        // Each leaves the set before it completes: whoever sees the future done sees it gone from the set too.

        @Override
        public boolean complete(ActivityOutcome outcome) {
            leaveOnce();
            return super.complete(outcome);
        }

        @Override
        public boolean completeExceptionally(Throwable cause) {
            leaveOnce();
            return super.completeExceptionally(cause);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            leaveOnce();
            return super.cancel(mayInterruptIfRunning);
        }

        @Override
        public void obtrudeValue(ActivityOutcome value) {
            leaveOnce();
            super.obtrudeValue(value);
        }

        @Override
        public void obtrudeException(Throwable cause) {
            leaveOnce();
            super.obtrudeException(cause);
        }

        /** Through {@link #complete}: the JDK's own completes the future internally, past every override here. */
        @Override
        public CompletableFuture<ActivityOutcome> completeAsync(Supplier<? extends ActivityOutcome> supplier, Executor executor) {
            Objects.requireNonNull(supplier, "supplier");
            Objects.requireNonNull(executor, "executor");
            executor.execute(() -> {
                try {
                    complete(supplier.get());
                } catch (Throwable t) {
                    completeExceptionally(t instanceof CompletionException ? t : new CompletionException(t));
                }
            });
            return this;
        }

        /** Leaves the set once, whichever completion gets here first (two cancels both return true, say). */
        private void leaveOnce() {
            if (LEFT.compareAndSet(this, false, true)) {
                left(this);
            }
        }
    }
}
