package dev.baton.morsel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineFailedException;
import dev.baton.morsel.scheduler.PipelineReport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class MorselSchedulerTest {

    private final List<Morsel> morsels = Morsels.partition(0, 400, 1, 1);

    @Test
    void shouldNotStartAnyTaskOfTheNextWaveBeforeTheWaveBeforeEnds() {
        AtomicLong clock = new AtomicLong();
        AtomicLong lastEndOfWave1 = new AtomicLong();
        AtomicLong firstStartOfWave2 = new AtomicLong(Long.MAX_VALUE);
        try (MorselScheduler s = new MorselScheduler(4, 1, MorselMetrics.noop())) {
            s.runWaves(List.of(
                    new Pipeline("wave-1", morsels, (w, m, ctx) -> {
                        busy(m.id() % 7 * 20_000);
                        lastEndOfWave1.accumulateAndGet(clock.incrementAndGet(), Math::max);
                    }),
                    new Pipeline("wave-2", morsels, (w, m, ctx) -> firstStartOfWave2.accumulateAndGet(clock.incrementAndGet(), Math::min))));
        }
        assertThat(firstStartOfWave2.get()).isGreaterThan(lastEndOfWave1.get());
    }

    @Test
    void shouldStealFromASlowWorkersDequeAndCountEveryTask() {
        try (MorselScheduler s = new MorselScheduler(4, 1, MorselMetrics.noop())) {
            PipelineReport report = s.run(new Pipeline("skewed", morsels, (w, m, ctx) -> {
                if (m.id() % 4 == 0) {
                    busy(2_000_000); // the morsels dealt to worker 0 are slow
                }
            }));
            assertThat(report.completedTasks()).isEqualTo(400);
            assertThat(report.perWorker().stream().mapToInt(Integer::intValue).sum()).isEqualTo(400);
            assertThat(report.stolen()).isPositive();
            assertThat(report.perWorker().get(0)).isLessThan(100);
        }
    }

    @Test
    void shouldCancelSiblingsPromptlyWhenATaskFails() {
        AtomicInteger ran = new AtomicInteger();
        try (MorselScheduler s = new MorselScheduler(4, 1, MorselMetrics.noop())) {
            assertThatThrownBy(() -> s.run(new Pipeline("failing", Morsels.partition(0, 10_000, 1, 1), (w, m, ctx) -> {
                ran.incrementAndGet();
                if (m.id() == 20) {
                    throw new IllegalStateException("boom");
                }
                busy(200_000);
            }))).isInstanceOfSatisfying(PipelineFailedException.class, e -> {
                assertThat(e.pipeline()).isEqualTo("failing");
                assertThat(e.morselId()).isEqualTo(20);
                assertThat(e).hasRootCauseMessage("boom");
            });
            assertThat(ran.get()).as("siblings stopped before the queue drained").isLessThan(10_000);
            PipelineReport after = s.run(new Pipeline("after", morsels, (w, m, ctx) -> { }));
            assertThat(after.completedTasks()).as("the scheduler is usable after a failure").isEqualTo(400);
        }
    }

    @Test
    void shouldRunWorkerZeroOnTheCallingThreadAndLeaveItUninterruptedByAFailingPeer() {
        Thread caller = Thread.currentThread();
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop())) {
            Set<Thread> workerZero = ConcurrentHashMap.newKeySet();
            // Worker 1 waits for worker 0's first morsel: on a loaded machine it could otherwise steal all 400 before
            // the caller's thread runs, and worker 0 would have run nothing to look at.
            CountDownLatch zeroRan = new CountDownLatch(1);
            s.run(new Pipeline("where", morsels, (w, m, ctx) -> {
                if (w == 0) {
                    workerZero.add(Thread.currentThread());
                    zeroRan.countDown();
                } else {
                    zeroRan.await(10, TimeUnit.SECONDS);
                }
            }));
            assertThat(workerZero).containsExactly(caller);
            CountDownLatch zeroStarted = new CountDownLatch(1);
            assertThatThrownBy(() -> s.run(new Pipeline("peer fails", Morsels.partition(0, 10_000, 1, 1), (w, m, ctx) -> {
                if (w == 0) {
                    zeroStarted.countDown();
                    busy(200_000);
                } else if (zeroStarted.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("boom");
                }
            }))).isInstanceOf(PipelineFailedException.class).hasRootCauseMessage("boom");
            assertThat(Thread.interrupted()).as("the caller is not interrupted by a peer's failure").isFalse();
        }
    }

    @Test
    void shouldPublishMorselAndThroughputMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MorselScheduler s = new MorselScheduler(2, 1, new MorselMetrics(registry))) {
            s.run(new Pipeline("metered", morsels, 1_000_000, (w, m, ctx) -> busy(10_000)));
        }
        assertThat(registry.get("baton_morsel_morsels").counter().count()).isEqualTo(400.0);
        assertThat(registry.get("baton_morsel_rows").counter().count()).isEqualTo(1_000_000.0);
        assertThat(registry.get("baton_morsel_throughput_rows_per_second").gauge().value()).isPositive();
        assertThat(registry.get("baton_morsel_workers_active").gauge().value()).isZero();
    }

    @Test
    void shouldNameBadWorkerCounts() {
        assertThatThrownBy(() -> new MorselScheduler(0, 1, MorselMetrics.noop())).hasMessage("workers must be >= 1, was 0");
    }

    /** CPU work that cannot be optimized away, standing in for scanning a morsel. */
    private static void busy(long iterations) {
        long x = 0;
        for (long i = 0; i < iterations; i++) {
            x += i ^ (x >>> 3);
        }
        if (x == 42) {
            System.out.print("");
        }
    }
}
