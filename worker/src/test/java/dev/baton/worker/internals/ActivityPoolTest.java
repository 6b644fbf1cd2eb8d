package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ActivityPoolTest {

    private ActivityPool pool;
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    private ActivityPool pool(int max) {
        pool = new ActivityPool(max, r -> {
            Thread t = new Thread(r, "test-activity");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
            return t;
        });
        return pool;
    }

    @Test
    void blockingTasksRunConcurrentlyUpToTheLimit() throws Exception {
        int n = 40;
        ActivityPool pool = pool(n);
        CountDownLatch allStarted = new CountDownLatch(n);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                allStarted.countDown();
                awaitQuietly(release);
            });
        }
        // Each task blocks until every one has started: a task left queued behind a blocked one fails this.
        assertThat(allStarted.await(10, TimeUnit.SECONDS)).as("all %d blocking tasks started", n).isTrue();
        assertThat(pool.threads()).isEqualTo(n);
        release.countDown();
    }

    @Test
    void idleThreadsAreWokenForBlockingTasks() throws Exception {
        int n = 20;
        ActivityPool pool = pool(n);
        runRound(pool, n); // start n threads, then let them all go idle
        runRound(pool, n); // the second round must wake every idle one, not just the first
        assertThat(pool.threads()).isEqualTo(n);
    }

    @Test
    void queuedTasksWaitForAFreeThreadAtTheLimit() throws Exception {
        ActivityPool pool = pool(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(10);
        for (int i = 0; i < 10; i++) {
            pool.execute(() -> {
                awaitQuietly(release);
                ran.incrementAndGet();
                done.countDown();
            });
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pool.threads()).isEqualTo(2));
        assertThat(ran).hasValue(0);
        release.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).hasValue(10);
        assertThat(pool.threads()).isEqualTo(2);
    }

    @Test
    void quickTasksDoNotNeedAThreadEach() throws Exception {
        ActivityPool pool = pool(256);
        Set<Thread> used = ConcurrentHashMap.newKeySet();
        for (int batch = 0; batch < 50; batch++) { // as a worker leases them: a batch, then the next once done
            CountDownLatch done = new CountDownLatch(256);
            for (int i = 0; i < 256; i++) {
                pool.execute(() -> {
                    used.add(Thread.currentThread());
                    done.countDown();
                });
            }
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        }
        // A fixed ThreadPoolExecutor starts a thread per task up to its size: all 256 after the first batch.
        assertThat(pool.threads()).isLessThanOrEqualTo(64);
        assertThat(used.size()).isLessThanOrEqualTo(pool.threads());
    }

    @Test
    void aTaskThatThrowsDoesNotCostTheThread() throws Exception {
        ActivityPool pool = pool(1);
        CountDownLatch after = new CountDownLatch(1);
        pool.execute(() -> {
            throw new IllegalStateException("expected by the test");
        });
        pool.execute(after::countDown);
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.threads()).isEqualTo(1);
        assertThat(uncaught).singleElement().extracting(Throwable::getMessage).isEqualTo("expected by the test");
    }

    @Test
    void shutdownInterruptsRunningTasksAndRejectsNewOnes() throws Exception {
        ActivityPool pool = pool(4);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        pool.shutdownNow();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void rejectsAZeroLimit() {
        assertThatThrownBy(() -> new ActivityPool(0, Thread::new)).hasMessageContaining("maxThreads must be at least 1, was 0");
    }

    private static void runRound(ActivityPool pool, int n) throws InterruptedException {
        CountDownLatch allStarted = new CountDownLatch(n);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                allStarted.countDown();
                awaitQuietly(release);
                done.countDown();
            });
        }
        assertThat(allStarted.await(10, TimeUnit.SECONDS)).as("all %d blocking tasks started", n).isTrue();
        release.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
