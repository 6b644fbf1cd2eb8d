package dev.baton.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.baton.embedded.EmbeddedKafkaCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;

/**
 * The broker faults of a replicated cluster whose nodes are separate processes, one after another,
 * each with the recovery a caller sees measured by a {@link ResolutionProbe}:
 * <ul>
 *   <li>{@link Fault#LEADER_KILL}: {@code kill -9} of the node leading the most partitions of
 *       {@code baton.dispatch} and {@code baton.worker-events}, restarted after the downtime;</li>
 *   <li>{@link Fault#COORDINATOR_KILL}: {@code kill -9} of the transaction coordinator of one of the
 *       streams app's transactional ids, restarted after the downtime;</li>
 *   <li>{@link Fault#ROLLING_RESTART}: every node in turn stopped with a controlled shutdown and
 *       started again, the next one once every partition has all its replicas in sync;</li>
 *   <li>{@link Fault#PAUSE}: the dispatch leader frozen for 10 s (SIGSTOP, then SIGCONT), cut off
 *       from clients and peers alike while it keeps its sockets.</li>
 * </ul>
 * After each fault it waits until every replica is in sync again, so faults do not overlap.
 */
public final class ClusterFaults implements AutoCloseable {

    /** The broker faults, in the order {@link #all()} runs them. */
    public enum Fault { LEADER_KILL, COORDINATOR_KILL, ROLLING_RESTART, PAUSE }

    private static final Duration PAUSE = Duration.ofSeconds(10);
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final List<String> PATH_TOPICS = List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS);

    private final EmbeddedKafkaCluster cluster;
    private final ResolutionProbe probe;
    private final String streamsApplicationId;
    private final Duration downtime;
    private final LeaderWatch watch;

    /**
     * @param streamsApplicationId the streams app's {@code application.id}: its transactional ids start with it
     * @param downtime             how long a killed node stays down
     */
    public ClusterFaults(EmbeddedKafkaCluster cluster, ResolutionProbe probe, String streamsApplicationId, Duration downtime) {
        this.cluster = cluster;
        this.probe = probe;
        this.streamsApplicationId = streamsApplicationId;
        this.downtime = downtime;
        this.watch = new LeaderWatch(cluster, PATH_TOPICS);
    }

    /** Every fault, in declaration order. */
    public static List<Fault> all() {
        return List.of(Fault.values());
    }

    /** Leader changes seen on {@code baton.dispatch} and {@code baton.worker-events} since this was built (a floor). */
    public int leaderElectionsSeen() {
        return watch.changes();
    }

    /** Injects {@code fault}, reports each step and its recovery to {@code record}, and returns once the cluster is whole again. */
    public void inject(Fault fault, Consumer<String> record) throws InterruptedException {
        switch (fault) {
            case LEADER_KILL -> killLeader(record);
            case COORDINATOR_KILL -> killCoordinator(record);
            case ROLLING_RESTART -> rollingRestart(record);
            case PAUSE -> pauseLeader(record);
        }
        long t = System.nanoTime();
        awaitFullIsr();
        record.accept(String.format("every replica in sync again %.1f s later", (System.nanoTime() - t) / 1e9));
    }

    private void killLeader(Consumer<String> record) throws InterruptedException {
        int victim = nodeLeadingMostOfThePath();
        List<Integer> led = partitionsLedBy(victim);
        long killed = System.nanoTime();
        cluster.kill(victim);
        record.accept("kill -9 broker " + victim + ", leader of baton.dispatch partitions " + led);
        CompletableFuture<Double> resolved = probeAsync(led.isEmpty() ? probe.allPartitions() : led, killed);
        awaitNoLeadership(victim, killed, record);
        sleepUntil(killed + downtime.toNanos());
        cluster.restart(victim);
        record.accept(String.format("broker %d started again on its data dir (log recovery after kill -9), %.1f s after the kill", victim,
                (System.nanoTime() - killed) / 1e9));
        record.accept(seconds(resolved, "first dispatches on its partitions resolved through the new leaders %.1f s after the kill"));
    }

    private void killCoordinator(Consumer<String> record) throws InterruptedException {
        Optional<String> txn = streamsTransactionalId();
        if (txn.isEmpty()) {
            record.accept("no transactional id of " + streamsApplicationId + " found: the coordinator kill is skipped");
            return;
        }
        int victim = cluster.transactionCoordinatorOf(txn.get());
        long killed = System.nanoTime();
        cluster.kill(victim);
        record.accept("kill -9 broker " + victim + ", transaction coordinator of " + txn.get());
        CompletableFuture<Double> resolved = probeAsync(probe.allPartitions(), killed);
        sleepUntil(killed + downtime.toNanos());
        cluster.restart(victim);
        record.accept(String.format("broker %d started again, %.1f s after the kill", victim, (System.nanoTime() - killed) / 1e9));
        record.accept(seconds(resolved, "a dispatch on every partition resolved %.1f s after the coordinator's kill"));
    }

    private void rollingRestart(Consumer<String> record) throws InterruptedException {
        record.accept("rolling restart of brokers " + cluster.nodeIds());
        for (int id : List.copyOf(cluster.nodeIds())) {
            long stopping = System.nanoTime();
            cluster.stop(id);
            double stopped = (System.nanoTime() - stopping) / 1e9;
            String resolved = seconds(probeAsync(probe.allPartitions(), stopping), "a dispatch on every partition resolved %.1f s after it began");
            cluster.restart(id);
            double back = (System.nanoTime() - stopping) / 1e9;
            awaitFullIsr();
            record.accept(String.format("broker %d: controlled shutdown %.1f s; %s; started again after %.1f s, all replicas in sync after %.1f s",
                    id, stopped, resolved, back, (System.nanoTime() - stopping) / 1e9));
        }
    }

    private void pauseLeader(Consumer<String> record) throws InterruptedException {
        int victim = nodeLeadingMostOfThePath();
        List<Integer> led = partitionsLedBy(victim);
        long paused = System.nanoTime();
        CompletableFuture<Double> resolved = probeAsync(led.isEmpty() ? probe.allPartitions() : led, paused);
        record.accept("broker " + victim + " frozen (SIGSTOP) for " + PAUSE.toSeconds() + " s, leader of baton.dispatch partitions " + led);
        cluster.pause(victim, PAUSE);
        record.accept("broker " + victim + " resumed (SIGCONT)");
        record.accept(seconds(resolved, "first dispatches on its partitions resolved %.1f s after it froze"));
    }

    private CompletableFuture<Double> probeAsync(List<Integer> partitions, long sinceNanos) {
        return CompletableFuture.supplyAsync(() -> probe.secondsUntilResolved(partitions, sinceNanos, PATIENCE));
    }

    /** The probe's figure in {@code format}, or why there is none: a probe that got no answer is a finding, not the end of the faults. */
    private static String seconds(CompletableFuture<Double> probed, String format) {
        try {
            return String.format(format, probed.join());
        } catch (RuntimeException e) {
            return "PROBE FAILED (" + format.replace("%.1f s", "?") + "): " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        }
    }

    private void awaitNoLeadership(int victim, long killed, Consumer<String> record) throws InterruptedException {
        while (System.nanoTime() - killed < PATIENCE.toNanos()) {
            if (partitionsLedBy(victim).isEmpty()) {
                record.accept(String.format("new leaders for every partition broker %d led, %.1f s after the kill", victim,
                        (System.nanoTime() - killed) / 1e9));
                return;
            }
            Thread.sleep(100); // polling the cluster's metadata while the controller finds the node dead
        }
        record.accept("broker " + victim + " still leads partitions " + PATIENCE + " after its kill");
    }

    private void awaitFullIsr() throws InterruptedException {
        long until = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < until) {
            try {
                if (PATH_TOPICS.stream().allMatch(t -> cluster.inSyncReplicas(t).values().stream()
                        .allMatch(isr -> isr.size() == cluster.replicationFactor()))) {
                    return;
                }
            } catch (RuntimeException e) {
                // metadata not answerable for a moment
            }
            Thread.sleep(200); // polling the ISR while a restarted node catches up
        }
        throw new IllegalStateException("replicas not all in sync " + PATIENCE + " after a fault");
    }

    /** The node leading the most partitions of the path's topics, the lowest id on a tie. */
    private int nodeLeadingMostOfThePath() {
        SortedMap<Integer, Integer> counts = new TreeMap<>();
        for (String topic : PATH_TOPICS) {
            cluster.leaders(topic).values().stream().filter(id -> id >= 0).forEach(id -> counts.merge(id, 1, Integer::sum));
        }
        int best = -1;
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            if (best < 0 || e.getValue() > counts.get(best)) {
                best = e.getKey();
            }
        }
        if (best < 0) {
            throw new IllegalStateException("no partition of " + PATH_TOPICS + " has a leader");
        }
        return best;
    }

    private List<Integer> partitionsLedBy(int node) {
        List<Integer> led = new ArrayList<>();
        cluster.leaders(BatonTopics.DISPATCH).forEach((p, leader) -> {
            if (leader == node) {
                led.add(p);
            }
        });
        return led;
    }

    private Optional<String> streamsTransactionalId() {
        try (Admin admin = Admin.create(ClientConfigs.admin(cluster.bootstrapServers()))) {
            return admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream().map(TransactionListing::transactionalId)
                    .filter(id -> id.startsWith(streamsApplicationId + "-")).sorted().findFirst();
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the cluster's transactions: " + e, e);
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long rest = nanoTime - System.nanoTime();
        if (rest > 0) {
            TimeUnit.NANOSECONDS.sleep(rest); // the rest of the outage itself
        }
    }

    /** Stops the leader watch; the probe is its owner's to close. */
    @Override
    public void close() {
        watch.close();
    }
}
