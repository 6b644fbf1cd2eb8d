package dev.baton.dispatcher.internals;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A dispatch's future as its caller gets it: every stage the caller attaches runs on the client's callback executor,
 * never on the thread that completes the future, and so do the stages attached to those.
 *
 * <p>Why: outcomes are delivered by the client's one results thread. A stage attached the usual way ran on it, so a
 * caller that chained a second activity and waited for it inside the stage ({@code dispatch(a).thenAccept(o ->
 * dispatch(b).join())}, a sequential workflow written the obvious way) blocked the only thread that could deliver b's
 * outcome, and every later outcome of the client: none was ever answered, and nothing said why (h/adv21). A slow stage
 * held up every other caller's outcome the same way. The executor is a {@link java.util.concurrent.ForkJoinPool}: a
 * stage that waits on another dispatch's future with {@code join} or {@code get} lets the pool run the stages behind it
 * on a spare thread.
 *
 * <p>A caller that only waits ({@code get}, {@code join}) pays nothing for it: no stage, no task.
 *
 * <p>Not final: the future a dispatch's caller gets is one waiting in {@link PendingResults}.
 */
public class CallbackFuture<T> extends CompletableFuture<T> {

    private final Executor callbacks;

    public CallbackFuture(Executor callbacks) {
        this.callbacks = callbacks;
    }

    @Override
    public Executor defaultExecutor() {
        return callbacks;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CallbackFuture<>(callbacks);
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return thenApplyAsync(fn);
    }

    @Override
    public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
        return thenAcceptAsync(action);
    }

    @Override
    public CompletableFuture<Void> thenRun(Runnable action) {
        return thenRunAsync(action);
    }

    @Override
    public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other, BiFunction<? super T, ? super U, ? extends V> fn) {
        return thenCombineAsync(other, fn);
    }

    @Override
    public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other, BiConsumer<? super T, ? super U> action) {
        return thenAcceptBothAsync(other, action);
    }

    @Override
    public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return runAfterBothAsync(other, action);
    }

    @Override
    public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        return applyToEitherAsync(other, fn);
    }

    @Override
    public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
        return acceptEitherAsync(other, action);
    }

    @Override
    public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return runAfterEitherAsync(other, action);
    }

    @Override
    public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        return thenComposeAsync(fn);
    }

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        return handleAsync(fn);
    }

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return whenCompleteAsync(action);
    }

    @Override
    public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        return exceptionallyAsync(fn);
    }

    @Override
    public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
        return exceptionallyComposeAsync(fn);
    }
}
