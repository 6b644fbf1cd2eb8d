package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The plain lease's deferral timer: each action once, in order, never before its deferral, and nothing after close. */
class LeaseDeferralsTest {

    private static final Duration DEFERRAL = Duration.ofMillis(50);
    private final LeaseDeferrals deferrals = new LeaseDeferrals(DEFERRAL, "test");

    @AfterEach
    void close() {
        deferrals.close();
    }

    @Test
    void shouldRunEachActionOnceInOrderAndNotBeforeItsDeferral() {
        List<Long> ranAfterNanos = new CopyOnWriteArrayList<>();
        List<Integer> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            long deferredAt = System.nanoTime();
            deferrals.defer(() -> {
                ranAfterNanos.add(System.nanoTime() - deferredAt);
                order.add(n);
            });
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 100);
        assertThat(order).isSorted().doesNotHaveDuplicates();
        assertThat(ranAfterNanos).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(DEFERRAL.toNanos()));
    }

    @Test
    void shouldWakeForAnActionDeferredAfterItWentIdle() throws InterruptedException {
        CountDownLatch first = new CountDownLatch(1);
        deferrals.defer(first::countDown);
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();

        CountDownLatch second = new CountDownLatch(1);
        deferrals.defer(second::countDown);

        assertThat(second.await(10, TimeUnit.SECONDS)).as("the idle thread was woken").isTrue();
    }

    @Test
    void shouldRunTheNextActionWhenOneThrows() throws InterruptedException {
        CountDownLatch after = new CountDownLatch(1);
        deferrals.defer(() -> {
            throw new IllegalStateException("send failed");
        });
        deferrals.defer(after::countDown);

        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shouldDropActionsNotRunWhenClosed() {
        CountDownLatch ran = new CountDownLatch(1);
        LeaseDeferrals longOnes = new LeaseDeferrals(Duration.ofSeconds(30), "test-long");
        longOnes.defer(ran::countDown);

        longOnes.close();

        assertThat(ran.getCount()).as("close() joined the thread before the action was due: it never runs").isEqualTo(1);
    }
}
