package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.embedded.EmbeddedKafkaCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/**
 * Baton on three replicated brokers (replication factor 3, {@code min.insync.replicas=2}, internal
 * topics too) while the broker leading the most partitions of {@code baton.dispatch} is killed in the
 * middle of a paced run, then brought back: every caller must get exactly one outcome, its own, and
 * the logs must pass the invariant checker. Prints the recovery seen (docs/reliability/README.md).
 */
class LeaderKillIT {

    private static final int PARTITIONS = 6;
    private static final int ACTIVITIES = 2_400;
    private static final int PER_TICK = 20;
    private static final long TICK_MS = 100; // 200 dispatches a second: 12 s of dispatching
    private static final String QUEUE = "echo";

    /** One dispatched activity: when it left, where its site lives, and when its outcome came back. */
    private record Sent(int index, int partition, long sentNanos, CompletableFuture<ActivityOutcome> outcome, CompletableFuture<Long> resolvedNanos) {
    }

    @Test
    void shouldAnswerEveryCallerExactlyOnceWhenTheBrokerLeadingMostDispatchPartitionsIsKilled() throws Exception {
        ConcurrentLinkedQueue<ActivityOutcome> unmatched = new ConcurrentLinkedQueue<>();
        List<Sent> sent = new ArrayList<>();
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).build().start();
             LocalCluster baton = LocalCluster.on(kafka.bootstrapServers(), PARTITIONS, List.of(QUEUE), Map.of());
             DispatchClient client = baton.client("leader-kill", unmatched::add)) {
            assertThat(kafka.inSyncReplicas(BatonTopics.DISPATCH).values()).as("baton.dispatch is replicated three ways")
                    .allSatisfy(isr -> assertThat(isr).hasSize(3));
            baton.worker(WorkerOptions.builder().workerId("w1").queues(QUEUE).maxConcurrent(64).handler("echo", (ctx, input) -> input));

            // The paced run starts once one activity has made the whole trip (groups joined, producers ready).
            ActivityRequest warmUp = ActivityRequest.builder().site("leader-kill", "warm-up", "1").queue(QUEUE).activityType("echo")
                    .input(new byte[0], "text/plain").build();
            long warmUpStart = System.nanoTime();
            assertThat(client.dispatch(warmUp).get(60, TimeUnit.SECONDS).completed()).isTrue();
            double warmUpSeconds = (System.nanoTime() - warmUpStart) / 1e9;

            AtomicInteger resolved = new AtomicInteger();
            AtomicInteger next = new AtomicInteger();
            pacer.scheduleAtFixedRate(() -> {
                for (int k = 0; k < PER_TICK && next.get() < ACTIVITIES; k++) {
                    Sent s = dispatch(client, next.getAndIncrement());
                    s.outcome().whenComplete((o, e) -> {
                        s.resolvedNanos().complete(System.nanoTime());
                        resolved.incrementAndGet();
                    });
                    synchronized (sent) {
                        sent.add(s);
                    }
                }
            }, 0, TICK_MS, TimeUnit.MILLISECONDS);

            long firstSent = System.nanoTime();
            // Mid-run: a third dispatched (the warm-up proved outcomes flow), the rest still to come.
            await().atMost(Duration.ofSeconds(60)).until(() -> next.get() >= ACTIVITIES / 3);
            Map<Integer, Integer> leadersBefore = kafka.leaders(BatonTopics.DISPATCH);
            int victim = kafka.nodeLeadingMost(BatonTopics.DISPATCH);
            Set<Integer> victimPartitions = leadersBefore.entrySet().stream().filter(e -> e.getValue() == victim)
                    .map(Map.Entry::getKey).collect(Collectors.toSet());
            int dispatchedAtKill = next.get();
            int resolvedAtKill = resolved.get();
            long killedAt = System.nanoTime();
            kafka.kill(victim);
            double killTook = (System.nanoTime() - killedAt) / 1e9;

            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> !kafka.leaders(BatonTopics.DISPATCH).containsValue(victim));
            double electedAfter = (System.nanoTime() - killedAt) / 1e9;
            await().atMost(Duration.ofSeconds(60)).until(() -> next.get() >= ACTIVITIES);
            kafka.restart(victim);
            double restartedAfter = (System.nanoTime() - killedAt) / 1e9;
            await().atMost(Duration.ofSeconds(120)).until(() -> resolved.get() >= ACTIVITIES);
            pacer.shutdown();
            assertThat(pacer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

            Set<String> requestIds = new HashSet<>();
            for (Sent s : sent) {
                ActivityOutcome o = s.outcome().join();
                assertThat(o.completed()).as("activity %d: %s", s.index(), o).isTrue();
                assertThat(o.outputAsString()).as("activity %d answered with its own input", s.index()).isEqualTo(input(s.index()));
                requestIds.add(o.requestId());
            }
            assertThat(requestIds).as("one request id per caller").hasSize(ACTIVITIES);
            assertThat(unmatched).as("no second answer to any caller; outbox relays only").allSatisfy(o -> assertThat(o.unmatched()).isTrue());
            InvariantChecker.Report audit = InvariantChecker.check(kafka.bootstrapServers(), requestIds);
            assertThat(audit.violations()).as(audit.toString()).isEmpty();

            long firstThroughNewLeader = sent.stream().filter(s -> s.index() >= dispatchedAtKill && victimPartitions.contains(s.partition()))
                    .mapToLong(s -> s.resolvedNanos().join()).min().orElse(killedAt - 1_000_000_000L); // -1.0 s: none was sent after it
            System.out.printf("leader-kill: killed node %d leading baton.dispatch partitions %s of %s (the kill took %.1f s) %.1f s "
                            + "into the run, %d of %d dispatched and %d answered then; no partition led by it after %.1f s; first dispatch sent after the kill and resolved through "
                            + "a new leader after %.1f s; longest gap between outcomes %.1f s; node back after %.1f s; %d outbox relays; "
                            + "first outcome after %.1f s; %s%n",
                    victim, victimPartitions, leadersBefore, killTook, (killedAt - firstSent) / 1e9, dispatchedAtKill, ACTIVITIES, resolvedAtKill,
                    electedAfter,
                    (firstThroughNewLeader - killedAt) / 1e9, longestGap(sent) / 1e9, restartedAfter, unmatched.size(),
                    warmUpSeconds, audit);
        } finally {
            pacer.shutdownNow();
        }
    }

    private static Sent dispatch(DispatchClient client, int i) {
        ActivityRequest req = ActivityRequest.builder().site("leader-kill", "wf-" + i, "1").queue(QUEUE).activityType("echo")
                .input(input(i).getBytes(UTF_8), "text/plain").build();
        int partition = BuiltInPartitioner.partitionForKey(req.site().toBytes(), PARTITIONS);
        return new Sent(i, partition, System.nanoTime(), client.dispatch(req), new CompletableFuture<>());
    }

    private static String input(int i) {
        return "activity-" + i;
    }

    /** The longest time without any outcome between the first and the last. */
    private static long longestGap(List<Sent> sent) {
        long[] times = sent.stream().mapToLong(s -> s.resolvedNanos().join()).sorted().toArray();
        long gap = 0;
        for (int i = 1; i < times.length; i++) {
            gap = Math.max(gap, times[i] - times[i - 1]);
        }
        return gap;
    }
}
