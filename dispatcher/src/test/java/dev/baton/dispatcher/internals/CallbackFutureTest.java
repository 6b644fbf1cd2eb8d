package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Stages attached to a dispatch's future run on the callback pool, whatever the method and however deep the chain. */
class CallbackFutureTest {

    @Test
    void shouldRunEveryStageOnTheCallbackPoolNeverOnTheCompletingThread() throws Exception {
        ForkJoinPool pool = new ForkJoinPool(1);
        ExecutorService completer = Executors.newSingleThreadExecutor(r -> new Thread(r, "completer"));
        try {
            CallbackFuture<String> future = new CallbackFuture<>(pool);
            CallbackFuture<String> other = new CallbackFuture<>(pool);
            List<String> threads = new CopyOnWriteArrayList<>();
            Runnable where = () -> threads.add(Thread.currentThread().getName());
            CompletableFuture<?> all = CompletableFuture.allOf(
                    future.thenApply(s -> { where.run(); return s; }).thenAccept(s -> where.run()),
                    future.whenComplete((s, e) -> where.run()).handle((s, e) -> { where.run(); return s; }),
                    future.thenCompose(s -> { where.run(); return other; }).thenRun(where),
                    future.thenCombine(other, (a, b) -> { where.run(); return a + b; }),
                    future.exceptionally(e -> "x").thenRun(where));
            completer.submit(() -> future.complete("a")).get(10, TimeUnit.SECONDS);
            completer.submit(() -> other.complete("b")).get(10, TimeUnit.SECONDS);
            all.get(10, TimeUnit.SECONDS);

            assertThat(threads).hasSize(8).allSatisfy(t -> assertThat(t).isNotEqualTo("completer"));
        } finally {
            completer.shutdownNow();
            pool.shutdownNow();
        }
    }

    @Test
    void shouldLetAStageWaitOnAFutureCompletedByAStageQueuedBehindIt() throws Exception {
        ForkJoinPool pool = new ForkJoinPool(1);
        try {
            CallbackFuture<String> first = new CallbackFuture<>(pool);
            CallbackFuture<String> second = new CallbackFuture<>(pool);
            CompletableFuture<String> waits = first.thenApply(s -> s + second.thenApply(t -> t + "!").join());
            first.complete("a");
            second.complete("b"); // the stage on second is queued behind the one waiting for it, on a pool of one

            assertThat(waits).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("ab!");
        } finally {
            pool.shutdownNow();
        }
    }
}
