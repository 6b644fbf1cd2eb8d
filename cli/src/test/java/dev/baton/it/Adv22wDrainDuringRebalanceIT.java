package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Adversary round 22 (worker lifecycle), a probe that found nothing (kept as a regression test): a worker is drained
 * while its runs are in flight, just after a second worker joined the group (its partitions are being handed over
 * while their runs go on, under plain leases while their leases may still be deferred), and its handlers ignore the
 * drain's interrupt and finish only afterwards. Every caller must get one completed outcome of attempt 1 from the
 * second worker (a drain costs no retry and records no failure), the drained worker's late returns must report
 * nothing, and the invariant checker must find nothing. Both lease modes, each under its streams app's guarantee.
 */
class Adv22wDrainDuringRebalanceIT {

    private static final int RUNS = 6;

    @ParameterizedTest
    @EnumSource(LeaseMode.class)
    void aDrainDuringARebalanceCostsNoRetryAndNoFailure(LeaseMode mode) throws Exception {
        Map<String, Object> streams = Map.of();
        if (mode == LeaseMode.PLAIN) {
            byte[] key = new byte[32];
            Arrays.fill(key, (byte) 9);
            streams = Map.of("processing.guarantee", "at_least_once", "token.key", Base64.getEncoder().encodeToString(key));
        }
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger startedOnA = new AtomicInteger();
        List<String> runs = new CopyOnWriteArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(3, List.of("dq"), streams)) {
            Worker a = cluster.worker(WorkerOptions.builder().workerId("adv22w-a").queues("dq").maxConcurrent(RUNS + 2).leaseMode(mode)
                    .drainTimeout(Duration.ofMillis(300)).handler("hold", (ctx, input) -> {
                        runs.add(ctx.workerId() + " " + ctx.site() + " attempt " + ctx.attempt() + " gen " + ctx.generation());
                        if (ctx.workerId().equals("adv22w-a")) {
                            startedOnA.incrementAndGet();
                            while (true) { // deaf to the drain's interrupt: returns only once the test says so
                                try {
                                    if (release.await(60, TimeUnit.SECONDS)) {
                                        break;
                                    }
                                } catch (InterruptedException ignored) {
                                    // keep holding
                                }
                            }
                        }
                        return ("done by " + ctx.workerId()).getBytes(UTF_8);
                    }));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv22w-drain-" + mode, unmatched::add);
            List<CompletableFuture<ActivityOutcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                outcomes.add(client.dispatch(ActivityRequest.builder().site("adv22w", "drain-" + mode, "a" + i).queue("dq")
                        .activityType("hold").input(("in" + i).getBytes(UTF_8), "text/plain").build()));
            }
            await().atMost(LocalCluster.PATIENCE).until(() -> startedOnA.get() == RUNS);

            cluster.worker(WorkerOptions.builder().workerId("adv22w-b").queues("dq").maxConcurrent(RUNS + 2).leaseMode(mode)
                    .handler("hold", (ctx, input) -> {
                        runs.add(ctx.workerId() + " " + ctx.site() + " attempt " + ctx.attempt() + " gen " + ctx.generation());
                        return ("done by " + ctx.workerId()).getBytes(UTF_8);
                    }));
            a.close(); // while B's join is still rebalancing the group

            for (CompletableFuture<ActivityOutcome> f : outcomes) {
                ActivityOutcome o = f.get(90, TimeUnit.SECONDS);
                assertThat(o.completed()).as("%s; runs %s", o, runs).isTrue();
                assertThat(o.attempt()).as("a drain costs no retry: %s", o).isEqualTo(1);
                assertThat(new String(o.output(), UTF_8)).as("%s; runs %s", o, runs).isEqualTo("done by adv22w-b");
            }
            release.countDown(); // A's handlers return now: parked, they must report nothing
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(unmatched).as("late reports of the drained worker").isEmpty());
            InvariantChecker.Report report = InvariantChecker.check(cluster.bootstrapServers(), java.util.Set.of(),
                    mode == LeaseMode.PLAIN);
            assertThat(report.violations()).as("runs %s", runs).isEmpty();
        }
    }
}
