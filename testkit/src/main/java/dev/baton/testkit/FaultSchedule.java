package dev.baton.testkit;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.embedded.EmbeddedKafkaCluster;
import dev.baton.topics.BatonTopics;

/**
 * The soak's faults, on their own thread: {@code kill -9} of the oldest worker every interval with
 * a fresh one of the same spec (queues, node labels) started in its place; once, {@code kill -9} of
 * a streams-app instance and its restart on the same state directory; once, a broker outage: a stop
 * and start of the broker on the same data directory, or every connection to it cut for a while
 * with the broker still running; on a multi-broker cluster, the kill of the broker leading the most
 * partitions of {@code baton.dispatch} and its restart; on a cluster of separate processes, the
 * {@link ClusterFaults} one after another. With a {@link ResolutionProbe}, the streams-app kill is
 * followed by a probe of every partition: the time until all resolve is the time until the killed
 * instance's tasks process on the other one. Every fault is logged with its time since the start;
 * every worker kill is kept for {@link WorkerTakeovers}.
 */
public final class FaultSchedule implements AutoCloseable {

    /** When the faults fall, measured from the schedule's start. */
    public record Plan(Duration workerKillEvery, Duration streamsKillAfter, Duration brokerOutageAfter, Duration brokerDowntime,
                       BrokerOutage brokerOutage) {
    }

    /** How the broker goes away. */
    public enum BrokerOutage {
        /** Stopped and started again on its data directory. */
        RESTART,
        /** Still running, every connection to it cut (needs the {@link CuttableLink} in front of it). */
        DISCONNECT,
        /**
         * On a multi-broker cluster: the broker leading the most partitions of {@code baton.dispatch}
         * killed (no controlled shutdown), started again on its data directory after the downtime.
         */
        LEADER_KILL,
        /** On a cluster of separate processes: every one of {@link ClusterFaults.Fault}, in turn. */
        CLUSTER_FAULTS
    }

    private final EmbeddedKafka kafka;
    private final EmbeddedKafkaCluster cluster;
    private final ClusterFaults clusterFaults;
    private final ResolutionProbe probe;
    private final CuttableLink link;
    private final WorkerRoster workers;
    private final List<StreamsInstance> streams;
    private final Plan plan;
    private final PrintStream out;
    private final long startNanos = System.nanoTime();
    private final List<String> log = new ArrayList<>();
    /** Faults that could not be carried out or undone: a process that did not come back fails the soak, whatever else held. */
    private final List<String> failures = new ArrayList<>();
    private final List<WorkerTakeovers.Kill> workerKills = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Thread restarter;
    private volatile Thread brokerFaults;

    /** A streams-app process and how to start it again on the same state directory. */
    public static final class StreamsInstance implements AutoCloseable {
        private final String name;
        private final Supplier<BatonProcess> launcher;
        private volatile BatonProcess process;

        public StreamsInstance(String name, Supplier<BatonProcess> launcher) {
            this.name = name;
            this.launcher = launcher;
            this.process = launcher.get();
        }

        public String name() {
            return name;
        }

        /** What the current process printed (a crashed predecessor's output is gone with it). */
        public List<String> output() {
            return process.output();
        }

        void crash() {
            process.kill9();
        }

        void restart() {
            process = launcher.get();
        }

        /** SIGTERM: Streams closes cleanly and writes its checkpoint. */
        @Override
        public void close() {
            process.stop();
        }
    }

    /**
     * @param link  the relay in front of the broker; needed for {@link BrokerOutage#DISCONNECT}, else may be null
     * @param probe measures the streams-app kill's recovery; may be null
     */
    public FaultSchedule(EmbeddedKafka kafka, CuttableLink link, ResolutionProbe probe, WorkerRoster workers, List<StreamsInstance> streams,
                         Plan plan, PrintStream out) {
        this(kafka, null, null, link, probe, workers, streams, plan, out);
    }

    /**
     * The faults of {@code plan} on a multi-broker cluster, whose outage must be {@link BrokerOutage#LEADER_KILL}
     * or, with {@code clusterFaults}, {@link BrokerOutage#CLUSTER_FAULTS}.
     */
    public FaultSchedule(EmbeddedKafkaCluster cluster, ClusterFaults clusterFaults, ResolutionProbe probe, WorkerRoster workers,
                         List<StreamsInstance> streams, Plan plan, PrintStream out) {
        this(null, cluster, clusterFaults, null, probe, workers, streams, plan, out);
    }

    private FaultSchedule(EmbeddedKafka kafka, EmbeddedKafkaCluster cluster, ClusterFaults clusterFaults, CuttableLink link, ResolutionProbe probe,
                          WorkerRoster workers, List<StreamsInstance> streams, Plan plan, PrintStream out) {
        if (plan.brokerOutage() == BrokerOutage.DISCONNECT && link == null) {
            throw new IllegalArgumentException("a DISCONNECT outage needs the CuttableLink the broker is advertised through; link was null");
        }
        boolean clusterOutage = plan.brokerOutage() == BrokerOutage.LEADER_KILL || plan.brokerOutage() == BrokerOutage.CLUSTER_FAULTS;
        if (clusterOutage != (cluster != null)) {
            throw new IllegalArgumentException("a LEADER_KILL or CLUSTER_FAULTS outage needs a multi-broker cluster, and a cluster needs one; "
                    + "outage was " + plan.brokerOutage() + ", cluster " + (cluster == null ? "absent" : "present"));
        }
        if ((plan.brokerOutage() == BrokerOutage.CLUSTER_FAULTS) != (clusterFaults != null)) {
            throw new IllegalArgumentException("CLUSTER_FAULTS needs the ClusterFaults to inject, and they need it; outage was " + plan.brokerOutage());
        }
        this.kafka = kafka;
        this.cluster = cluster;
        this.clusterFaults = clusterFaults;
        this.probe = probe;
        this.link = link;
        this.workers = workers;
        this.streams = streams;
        this.plan = plan;
        this.out = out;
        this.thread = new Thread(this::run, "baton-soak-faults");
        thread.setDaemon(true);
        thread.start();
    }

    /** The workers killed so far, when. */
    public synchronized List<WorkerTakeovers.Kill> workerKills() {
        return List.copyOf(workerKills);
    }

    /** The faults so far, one line each. */
    public synchronized List<String> log() {
        return List.copyOf(log);
    }

    /** The faults so far that could not be carried out or undone (a restarted process that did not come back), one line each. */
    public synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    private void run() {
        boolean streamsKilled = false;
        boolean brokerWentAway = false;
        long nextWorkerKill = System.nanoTime() + plan.workerKillEvery().toNanos();
        try {
            while (running) {
                if (System.nanoTime() >= nextWorkerKill) {
                    replaceOldestWorker();
                    nextWorkerKill = System.nanoTime() + plan.workerKillEvery().toNanos();
                }
                long elapsed = System.nanoTime() - startNanos;
                // Not while the cluster's faults run: its recovery would time theirs too (the 10k run's kill fell into a freeze).
                if (!streamsKilled && elapsed >= plan.streamsKillAfter().toNanos() && (brokerFaults == null || !brokerFaults.isAlive())) {
                    streamsKilled = true;
                    crashAndRestartStreams();
                }
                if (!brokerWentAway && elapsed >= plan.brokerOutageAfter().toNanos()) {
                    brokerWentAway = true;
                    switch (plan.brokerOutage()) {
                        case RESTART -> restartBroker();
                        case DISCONNECT -> cutBroker();
                        case LEADER_KILL -> killLeader();
                        case CLUSTER_FAULTS -> startClusterFaults();
                    }
                }
                Thread.sleep(100); // the schedule's clock tick, not a wait for an event
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            record("fault schedule stopped: " + e);
        }
    }

    private void replaceOldestWorker() {
        BatonProcess victim = workers.killOldest();
        synchronized (this) {
            workerKills.add(new WorkerTakeovers.Kill(victim.name(), System.currentTimeMillis()));
        }
        WorkerSpec spec = workers.specOf(victim.name());
        record("kill -9 worker " + victim.name());
        BatonProcess fresh = workers.start(spec);
        record("started worker " + fresh.name() + " (" + spec + ")");
    }

    /** Kills an instance and restarts it on its own thread, so the other faults keep their times. */
    private void crashAndRestartStreams() {
        StreamsInstance victim = streams.get(0);
        long t = System.nanoTime();
        victim.crash();
        record("kill -9 streams app " + victim.name() + (streams.size() > 1 ? " (its tasks move to the other instance)" : ""));
        if (probe != null) {
            // In parallel with the restart: with two instances the other takes the tasks over long before it.
            CompletableFuture.supplyAsync(() -> probe.recovery(probe.allPartitions(), t, Duration.ofMinutes(3)))
                    .whenComplete((r, e) -> record(e == null
                            ? String.format("a dispatch on every partition processed by the streams app %.1f s after its kill, resolved %.1f s after",
                                    r.processedSeconds(), r.resolvedSeconds())
                            : "probing after the streams app's kill failed: " + e.getMessage()));
        }
        restarter = new Thread(() -> {
            try {
                victim.restart();
                record(String.format("restarted streams app %s on its state dir; RUNNING %.1f s after the kill", victim.name(), (System.nanoTime() - t) / 1e9));
            } catch (RuntimeException e) {
                failed("restarting streams app " + victim.name() + " failed: " + e.getMessage());
            }
        }, "baton-soak-streams-restart");
        restarter.setDaemon(true);
        restarter.start();
    }

    private void restartBroker() throws InterruptedException {
        record("stopping the broker");
        kafka.stop();
        Thread.sleep(plan.brokerDowntime().toMillis()); // the outage itself
        kafka.start();
        record("broker started again on the same data dir after " + plan.brokerDowntime().toMillis() + " ms down");
    }

    /**
     * Kills the broker leading the most partitions of {@code baton.dispatch}, logs when none is led
     * by it any more (the new leaders elected), and starts it again once the downtime is over.
     */
    private void killLeader() throws InterruptedException {
        int victim = cluster.nodeLeadingMost(BatonTopics.DISPATCH);
        List<Integer> led = cluster.leaders(BatonTopics.DISPATCH).entrySet().stream().filter(e -> e.getValue() == victim)
                .map(Map.Entry::getKey).toList();
        long killed = System.nanoTime();
        cluster.kill(victim);
        record("killed broker " + victim + " (no controlled shutdown), leader of baton.dispatch partitions " + led);
        long downUntil = killed + plan.brokerDowntime().toNanos();
        boolean elected = false;
        while (!elected && System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(60)) {
            elected = !cluster.leaders(BatonTopics.DISPATCH).containsValue(victim);
            if (!elected) {
                Thread.sleep(100); // the schedule's clock tick while the controller finds the broker dead
            }
        }
        record(String.format(elected ? "baton.dispatch has new leaders for every partition of broker %d, %.1f s after the kill"
                : "broker %d still leads baton.dispatch partitions %.1f s after the kill", victim, (System.nanoTime() - killed) / 1e9));
        long rest = downUntil - System.nanoTime();
        if (rest > 0) {
            Thread.sleep(rest / 1_000_000); // the rest of the outage itself
        }
        cluster.restart(victim);
        record(String.format("broker started again: node %d on its data dir, %.1f s after the kill", victim, (System.nanoTime() - killed) / 1e9));
    }

    /** Runs the cluster's faults on their own thread, so worker and streams-app kills keep their times. */
    private void startClusterFaults() {
        brokerFaults = new Thread(() -> {
            try {
                for (ClusterFaults.Fault fault : ClusterFaults.all()) {
                    record("broker fault " + fault);
                    clusterFaults.inject(fault, this::record);
                }
                record("broker faults done; leader changes seen on baton.dispatch and baton.worker-events: " + clusterFaults.leaderElectionsSeen());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                record("broker faults stopped: " + e);
            }
        }, "baton-soak-broker-faults");
        brokerFaults.setDaemon(true);
        brokerFaults.start();
    }

    private void cutBroker() throws InterruptedException {
        record("cutting every connection to the broker (it keeps running)");
        link.cut(plan.brokerDowntime());
        record("connections to the broker let through again after " + plan.brokerDowntime().toMillis() + " ms cut off");
    }

    private synchronized void failed(String fault) {
        record(fault);
        failures.add(fault);
    }

    private synchronized void record(String fault) {
        String line = String.format("fault  %7.1f s  %s", (System.nanoTime() - startNanos) / 1e9, fault);
        log.add(line);
        out.println(line);
    }

    @Override
    public void close() {
        running = false; // no interrupt: a broker restart in progress must finish, or the broker stays down
        try {
            thread.join(120_000);
            if (restarter != null) {
                restarter.join(300_000);
            }
            if (brokerFaults != null) {
                brokerFaults.join(900_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
