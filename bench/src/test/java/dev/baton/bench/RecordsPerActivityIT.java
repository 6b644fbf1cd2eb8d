package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Records one echo activity writes, per topic, in each delivery mode, on the embedded broker: a
 * regression guard for issue 29's "records per activity". Counts are log-end offsets, so transaction
 * markers count, as in {@code bench dispatch}; they do not depend on the machine's load except through
 * how many activities share a commit, which the waves fix (each wave is answered before the next).
 */
class RecordsPerActivityIT {

    private static final int PARTITIONS = 6;
    private static final int WAVES = 10;
    private static final int PER_WAVE = 100;
    private static final String CHANGELOG = "sites changelog";

    /**
     * Exactly-once: 3 history events, 2 worker events, a task, a result and a dispatch per activity, the
     * sites row 3 times (the record cache that folded one of them is off by default: it cost latency,
     * docs/decisions.md "The sites cache is off by default"), and a transaction marker per partition a
     * commit touched: 11.1 on a quiet machine, 12.8 under heavy load (smaller commits, more markers);
     * 13.5 leaves room for that. At-least-once: 8.0 apart from the runs that outlive the 20 ms lease
     * deferral and so send their LEASED (a worker event, its history event and its row write: 3 records
     * each). How many do depends on the machine's moment, not the code (a fresh clone's CI once had 17% of
     * them: 8.51), so those are counted apart: the rest must be 8.0 (+0.05), and at most half the runs may
     * send a LEASED (a regression that sent it always would be 1.0).
     *
     * <p>At-least-once also runs with a commit interval longer than the whole measurement, so a row
     * held back in a cache until the commit would show as fewer than 2 changelog records per activity.
     * Under at-least-once an answer is visible once sent, so the row that decided it must not wait for
     * the next commit: a crash would lose the row after the answer went out, and the input read again
     * could be decided differently (the model check found one). With the cache it was 1.0.
     */
    @ParameterizedTest
    @EnumSource(DispatchBench.Guarantee.class)
    void shouldWriteNoMoreRecordsPerActivityThanIssue29Allows(DispatchBench.Guarantee guarantee) throws Exception {
        boolean atLeastOnce = guarantee == DispatchBench.Guarantee.at_least_once;
        Map<String, Double> perTopic = measure(guarantee, atLeastOnce ? Map.of("commit.interval.ms", 5_000L) : Map.of());
        double total = perTopic.values().stream().mapToDouble(Double::doubleValue).sum();
        if (atLeastOnce) {
            double leased = perTopic.get("baton.worker-events") - 1.0; // a completion per run, a LEASED for the long ones
            assertThat(leased).as("runs that sent a LEASED, per activity: %s", perTopic).isLessThanOrEqualTo(0.5);
            assertThat(total - 3 * leased).as("%s, the LEASED runs' 3 records apart: %s", guarantee.label, perTopic)
                    .isLessThanOrEqualTo(8.05);
            assertThat(perTopic.get(CHANGELOG)).as("every row write reaches the changelog: %s", perTopic).isGreaterThanOrEqualTo(1.95);
        } else {
            assertThat(total).as("%s: %s", guarantee.label, perTopic).isLessThanOrEqualTo(13.5);
        }
    }

    /** Records per activity by topic (the bench's short names; the broker's internal topics left out). */
    private static Map<String, Double> measure(DispatchBench.Guarantee guarantee, Map<String, Object> extra) throws Exception {
        Map<String, Object> settings = new HashMap<>(extra);
        settings.put("processing.guarantee", guarantee.name());
        boolean atLeastOnce = guarantee == DispatchBench.Guarantee.at_least_once;
        if (atLeastOnce) {
            settings.put(StreamsAppConfig.TOKEN_KEY_CONFIG, Base64.getEncoder().encodeToString(new byte[32]));
        }
        try (LocalCluster cluster = LocalCluster.start(PARTITIONS, List.of("echo"), settings)) {
            cluster.worker(WorkerOptions.builder().workerId("echo-worker").queues("echo").maxConcurrent(256)
                    .handler("echo", (ctx, input) -> input).leaseMode(atLeastOnce ? LeaseMode.PLAIN : LeaseMode.TRANSACTIONAL));
            try (DispatchClient client = cluster.client("records", o -> { })) {
                wave(client, "warm-up", PER_WAVE); // topics' leaders, groups and schemas settle before counting
                awaitCommitted(cluster);
                Map<String, Long> before = DispatchBench.recordsByTopic(cluster.bootstrapServers());
                for (int w = 0; w < WAVES; w++) {
                    wave(client, "w" + w, PER_WAVE);
                }
                awaitCommitted(cluster); // the last commit's changelog flush and markers are in
                Map<String, Long> after = DispatchBench.recordsByTopic(cluster.bootstrapServers());
                long activities = (long) WAVES * PER_WAVE;
                System.out.printf("records     %s %s wrote %s%n", guarantee.label, extra, DispatchBench.recordsPerActivity(before, after, activities));
                return DispatchBench.batonRecordsPerActivity(before, after, activities);
            }
        }
    }

    private static void wave(DispatchClient client, String prefix, int n) throws Exception {
        List<CompletableFuture<ActivityOutcome>> answers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            answers.add(client.dispatch(ActivityRequest.builder().site("records", prefix + "-" + i, "1").queue("echo")
                    .activityType("echo").input(new byte[100], "application/octet-stream").build()));
        }
        for (CompletableFuture<ActivityOutcome> a : answers) {
            assertThat(a.get(120, TimeUnit.SECONDS).completed()).isTrue();
        }
    }

    private static void awaitCommitted(LocalCluster cluster) {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.streamsAppCaughtUp(BatonTopics.DISPATCH)
                && cluster.streamsAppCaughtUp(BatonTopics.WORKER_EVENTS));
    }
}
