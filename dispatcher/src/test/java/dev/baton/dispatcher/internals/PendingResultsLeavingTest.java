package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.schemas.SiteKey;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Every way the caller's future can complete takes it out of the pending set exactly once (adversarial review h/adv34:
 * {@code completeAsync} and {@code obtrude*} complete it past {@code complete}, two cancels both return true, a timeout
 * could fire before the future was in the set).
 */
class PendingResultsLeavingTest {

    private static ActivityOutcome outcome(String requestId) {
        return new ActivityOutcome(new SiteKey("ns", "wf", "1"), requestId, 1, true, new byte[] {42}, "application/octet-stream",
                null, "w-1", false);
    }

    /** The JDK's completeAsync completes through CompletableFuture's internal completeValue, never through complete. */
    @Test
    void shouldFreeTheSlotAndRecordTheLatencyOfAFutureTheCallerCompletedAsync() {
        AtomicInteger recorded = new AtomicInteger();
        PendingResults pending = new PendingResults(1, 0, Runnable::run, nanos -> recorded.incrementAndGet(), new RequestIds());
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        future.completeAsync(() -> outcome("r-1"), Runnable::run).join();

        assertThat(future).isDone();
        assertThat(pending.size()).as("size() after the caller's future completed").isZero();
        assertThat(recorded.get()).as("latency recorded").isEqualTo(1);
    }

    /** obtrudeValue / obtrudeException are not overridden either. */
    @Test
    void shouldFreeTheSlotOfAFutureTheCallerObtrudedAValueOn() {
        PendingResults pending = new PendingResults(1, 0, Runnable::run, nanos -> { }, new RequestIds());
        CompletableFuture<ActivityOutcome> future = pending.register("r-1");

        future.obtrudeValue(outcome("r-1"));

        assertThat(future).isDone();
        assertThat(pending.size()).isZero();
    }

    /** Two threads cancelling one future: CompletableFuture.cancel returns true to both (cancelled || isCancelled()). */
    @Test
    void shouldRecordTheLatencyOnceWhenTwoThreadsCancel() throws Exception {
        Queue<Long> recorded = new ConcurrentLinkedQueue<>();
        PendingResults pending = new PendingResults(100_000, 0, Runnable::run, recorded::add, new RequestIds());
        int rounds = 20_000;
        CyclicBarrier barrier = new CyclicBarrier(2);
        CompletableFuture<?>[] futures = new CompletableFuture<?>[rounds];
        for (int i = 0; i < rounds; i++) {
            futures[i] = pending.register("r-" + i);
        }
        Runnable canceller = () -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    barrier.await();
                    futures[i].cancel(false);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        };
        Thread a = new Thread(canceller);
        Thread b = new Thread(canceller);
        a.start();
        b.start();
        a.join();
        b.join();

        assertThat(recorded).as("latency samples for " + rounds + " cancelled dispatches").hasSize(rounds);
    }

    /**
     * A registration stalled in the map's put for longer than dispatch.timeout.ms (a preemption, a resize): a timeout
     * scheduled before the put would fire first, leave nothing to remove, and the put would then keep a failed future
     * holding a max.pending slot. The stall is made by holding the map's bin lock for the key.
     */
    @Test
    void shouldNotKeepAFutureWhoseTimeoutFiredWhileItsRegistrationStalled() throws Exception {
        int leaked = 0;
        for (int round = 0; round < 5; round++) {
            CountDownLatch timedOut = new CountDownLatch(1);
            PendingResults pending = new PendingResults(10, 1, Runnable::run, nanos -> timedOut.countDown(), new RequestIds());
            Field f = PendingResults.class.getDeclaredField("byRequestId");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            Map<Object, Object> map = (Map<Object, Object>) f.get(pending);
            CountDownLatch locked = new CountDownLatch(1);
            Thread holder = new Thread(() -> map.compute("r-1", (k, v) -> {
                locked.countDown();
                try {
                    // The registering thread stalls here, in its put, until a timeout scheduled before the put has fired
                    // (at most the wait below: a timeout scheduled after the put cannot fire while the put waits).
                    timedOut.await(200, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return v;
            }));
            holder.start();
            locked.await();
            CompletableFuture<ActivityOutcome> future = pending.register("r-1");
            holder.join();
            future.handle((o, e) -> e).get(5, TimeUnit.SECONDS);
            boolean kept;
            try {
                await().atMost(Duration.ofSeconds(2)).until(() -> pending.size() == 0);
                kept = false;
            } catch (ConditionTimeoutException e) {
                kept = true;
            }
            if (kept) {
                leaked++;
                // held until the outcome arrives: then complete() finds the done future, frees the slot, answers false
                assertThat(pending.complete("r-1", outcome("r-1"))).isFalse();
                assertThat(pending.size()).isZero();
            }
        }
        assertThat(leaked).as("rounds of 5 in which a timed-out future kept its max.pending slot").isZero();
    }

    /** The timeout's exception says which request waited and for how long. */
    @Test
    void shouldNameTheRequestAndTheLimitInATimeout() throws Exception {
        PendingResults timed = new PendingResults(10, 20, Runnable::run, nanos -> { }, new RequestIds());
        CompletableFuture<ActivityOutcome> future = timed.register("r-1");
        Throwable e = future.handle((o, t) -> t).get(5, TimeUnit.SECONDS);

        assertThat(e).isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(e.getMessage()).as("the TimeoutException's message").isNotNull().contains("r-1").contains("20");
    }
}
