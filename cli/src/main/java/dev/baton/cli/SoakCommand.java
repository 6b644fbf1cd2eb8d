package dev.baton.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.embedded.EmbeddedKafkaCluster;
import dev.baton.morsel.history.OutboxScan;
import dev.baton.streams.recovery.AbandonedTransactionFencer;
import dev.baton.streams.recovery.HangingTransactionReaper;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.ClusterFaults;
import dev.baton.testkit.CuttableLink;
import dev.baton.testkit.FaultSchedule;
import dev.baton.testkit.FaultSchedule.StreamsInstance;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LogVisibility;
import dev.baton.testkit.ResolutionProbe;
import dev.baton.testkit.TempDirs;
import dev.baton.testkit.WorkerRoster;
import dev.baton.testkit.WorkerSpec;
import dev.baton.testkit.WorkerTakeovers;
import dev.baton.testkit.soak.RecoveryReport;
import dev.baton.testkit.soak.SoakLedger;
import dev.baton.testkit.soak.SoakPlan;
import dev.baton.testkit.soak.SoakReport;
import dev.baton.testkit.soak.SoakWorkload;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.ClientIds;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.internals.Topic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code baton soak}: the chaos soak of DESIGN §4. An embedded broker in this JVM (or, with
 * {@code --brokers N}, a replicated cluster of N, whose leader of {@code baton.dispatch} is killed
 * instead of the broker restart); the streams app
 * (one or two instances, standby replicas on) and the workers as separate processes; a paced
 * workload from a dispatcher here, while {@link FaultSchedule} kills workers, crashes a streams-app
 * instance and restarts the broker. Besides ordinary activities the stream mixes in, a few percent
 * each, joined callers, resent requests, takeovers, cancels, pinned dispatches and a second queue
 * ({@link SoakPlan}). Then the soak checks every request id it sent got exactly one outcome of a kind
 * its role allows ({@link SoakLedger}), and the invariant checker audits history and results. Exits
 * non-zero if anything fails.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, subcommands = ScaleCommand.class,
        description = "Run a workload while killing workers, a streams-app instance and the broker; then audit every outcome.")
public final class SoakCommand implements Callable<Integer> {

    @Option(names = "--activities", defaultValue = "100000", description = "Activities to dispatch (default ${DEFAULT-VALUE})")
    int activities;

    @Option(names = "--rate", defaultValue = "300", description = "Dispatches per second (default ${DEFAULT-VALUE})")
    int rate;

    @Option(names = "--workers", defaultValue = "3", description = "Worker processes alive at once; the odd-numbered ones serve both queues "
            + "and carry the node label (default ${DEFAULT-VALUE})")
    int workerCount;

    @Option(names = "--streams-instances", defaultValue = "2", description = "Streams-app processes (default ${DEFAULT-VALUE})")
    int streamsInstances;

    @Option(names = "--kill-worker-every-s", defaultValue = "10", description = "Seconds between worker kills (default ${DEFAULT-VALUE})")
    int killEverySeconds;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions per topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--data-dir", description = "Broker data directory (default: a temp dir, deleted afterwards)")
    Path dataDir;

    @Option(names = "--broker-outage",
            description = "How the brokers go away. One broker: RESTART (stop, start on its data dir; the default) or DISCONNECT (every "
                    + "connection cut, broker running); Kafka 4.4.0 can lose transaction markers on a single-node restart (KAFKA-20734), "
                    + "see docs/decisions.md. Several: CLUSTER_FAULTS (the default: kill -9 of the broker leading the most partitions of "
                    + "baton.dispatch and baton.worker-events, kill -9 of a streams-app transaction coordinator, a rolling restart, the "
                    + "dispatch leader frozen for 10 s, one after another) or LEADER_KILL (the dispatch leader's kill -9 only)")
    FaultSchedule.BrokerOutage brokerOutage;

    @Option(names = "--broker-down-s", defaultValue = "3",
            description = "How long one broker stays stopped (RESTART) or cut off (DISCONNECT); longer than a client's 5 s metadata wait "
                    + "makes every client meet a broker that does not answer (default ${DEFAULT-VALUE})")
    int brokerDownSeconds;

    @Option(names = "--brokers", defaultValue = "1",
            description = "Brokers in the embedded cluster. With more than one, each runs in its own JVM and is also a controller; from 3 on, "
                    + "topics get replication factor 3 and min.insync.replicas=2 (default ${DEFAULT-VALUE})")
    int brokers;

    @Spec
    CommandSpec spec;

    @Option(names = "--guarantee", defaultValue = "exactly_once_v2",
            description = "The streams app's processing.guarantee: exactly_once_v2 or at_least_once (outcomes may repeat, identically; "
                    + "a token.key is generated for the run, and workers lease plainly) (default ${DEFAULT-VALUE})")
    Guarantee guarantee;

    /** The streams app's processing guarantees, spelt as its processing.guarantee values. */
    enum Guarantee { exactly_once_v2, at_least_once }

    @Option(names = "--timeout-minutes", defaultValue = "60", description = "Give up waiting for outcomes after this long (default ${DEFAULT-VALUE})")
    int timeoutMinutes;

    /** Warning and error lines printed per process when the soak fails. */
    private static final int PROBLEM_LINES = 15;
    /** The streams app's consumer group: its application id, which the soak leaves at the default. */
    private static final String STREAMS_GROUP = "baton-streams";
    /** The soak's dispatch client; raw resends are addressed to it too. */
    private static final String CLIENT_ID = "soak";

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        checkBrokerOptions();
        Path work = Files.createTempDirectory("baton-soak-");
        EmbeddedKafka.Builder broker = EmbeddedKafka.builder();
        if (dataDir != null) {
            broker.dataDir(dataDir);
        }
        CuttableLink link = null;
        if (brokerOutage == FaultSchedule.BrokerOutage.DISCONNECT) {
            int brokerPort = EmbeddedKafka.freePort();
            link = new CuttableLink(brokerPort);
            broker.brokerPort(brokerPort).advertisedPort(link.port());
        }
        WorkerRoster workers = null;
        List<StreamsInstance> streams = new ArrayList<>();
        try (Brokers kafka = brokers > 1 ? Brokers.of(cluster()) : Brokers.of(broker.build().start())) {
            try (Admin admin = Admin.create(ClientConfigs.admin(kafka.bootstrapServers()))) {
                new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(partitions), SoakPlan.queues(),
                        SoakPlan.nodesByQueue()));
            }
            out.printf("soak   broker%s %s, %d activities at %d/s, %d workers, %d streams-app instances%n",
                    brokers > 1 ? "s" : "", kafka.bootstrapServers(), activities, rate, workerCount, streamsInstances);
            List<String> guaranteeConfig = guaranteeConfig();
            // the streams apps start together (their first rebalance takes them both in), then the workers together: a JVM's
            // start and a group's first rebalance are mostly waiting, and one process after another took ~19 s of each soak
            // (all five at once were slower than in two steps on 2 cores)
            List<Supplier<StreamsInstance>> streamsStarts = new ArrayList<>();
            for (int i = 1; i <= streamsInstances; i++) {
                Path stateDir = Files.createDirectories(work.resolve("streams-" + i));
                String name = "streams-" + i;
                streamsStarts.add(() -> new StreamsInstance(name, () -> BatonProcess.streamsApp(kafka.bootstrapServers(), name, stateDir,
                        guaranteeConfig)));
            }
            streams.addAll(BatonProcess.startAll(streamsStarts));
            workers = new WorkerRoster(kafka.bootstrapServers(), "soak-worker-", 1_000,
                    guarantee == Guarantee.at_least_once ? List.of("worker.lease.mode=plain") : List.of());
            List<WorkerSpec> specs = new ArrayList<>();
            for (int i = 1; i <= workerCount; i++) {
                specs.add(SoakPlan.workerSpec(i));
            }
            for (BatonProcess w : workers.startAll(specs)) {
                out.printf("soak   worker %s serves %s%n", w.name(), workers.specOf(w.name()));
            }
            out.printf("soak   processes up after %.1f s%n", (System.nanoTime() - started) / 1e9);
            SoakLedger ledger = new SoakLedger();
            Run run = runWorkload(kafka, link, workers, streams, ledger);
            workers.killAll();
            streams.forEach(StreamsInstance::close);

            SoakLedger.Verdict verdict = ledger.verify();
            InvariantChecker.Report audit = InvariantChecker.check(kafka.bootstrapServers(), ledger.requestIds(),
                    guarantee == Guarantee.at_least_once);
            OutboxScan.Result outbox = OutboxScan.read(ClientConfigs.bootstrap(kafka.bootstrapServers()), "kafka://", CLIENT_ID);
            int settled = ledger.activitiesSettled();
            new SoakReport(out).print(new SoakReport.Figures(run.faults(), brokerOutage, activities, settled, run.seconds(), verdict, audit,
                    ledger.outbox().size(), outbox.entries().size(), run.cancelsNotSent(),
                    streamsLines(streams, HangingTransactionReaper.ABORTED), streamsLines(streams, AbandonedTransactionFencer.FENCED)));
            RecoveryReport.print(out, kafka.bootstrapServers(), run.workerKills());
            run.faultFailures().forEach(f -> out.println("FAIL   a fault was not carried out as planned: " + f));
            boolean ok = audit.ok() && verdict.ok() && settled == activities && run.faultFailures().isEmpty();
            if (!ok) {
                streams.forEach(s -> printProblems(s.name(), s.output()));
                workers.alive().forEach(w -> printProblems(w.name(), w.output()));
                printHeldBack(kafka);
            }
            out.printf("%s   %.1f s in all%n", ok ? "ok  " : "FAIL", (System.nanoTime() - started) / 1e9);
            return ok ? 0 : 1;
        } finally {
            if (workers != null) {
                workers.close();
            }
            streams.forEach(s -> {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    // already gone
                }
            });
            TempDirs.deleteQuietly(work);
            if (link != null) {
                link.close();
            }
        }
    }

    private record Run(double seconds, List<String> faults, List<String> faultFailures, int cancelsNotSent,
                       List<WorkerTakeovers.Kill> workerKills) {
    }

    /** The soak's Kafka: one embedded broker, or a cluster of several. */
    private record Brokers(EmbeddedKafka single, EmbeddedKafkaCluster cluster) implements AutoCloseable {
        static Brokers of(EmbeddedKafka single) {
            return new Brokers(single, null);
        }

        static Brokers of(EmbeddedKafkaCluster cluster) {
            return new Brokers(null, cluster);
        }

        String bootstrapServers() {
            return single != null ? single.bootstrapServers() : cluster.bootstrapServers();
        }

        FaultSchedule faults(CuttableLink link, ClusterFaults clusterFaults, ResolutionProbe probe, WorkerRoster workers,
                             List<StreamsInstance> streams, FaultSchedule.Plan plan, PrintStream out) {
            return single != null ? new FaultSchedule(single, link, probe, workers, streams, plan, out)
                    : new FaultSchedule(cluster, clusterFaults, probe, workers, streams, plan, out);
        }

        @Override
        public void close() {
            if (single != null) {
                single.close();
            } else {
                cluster.close();
            }
        }
    }

    /** One broker can restart or be cut off; several go through the cluster's faults. Any other pairing is a usage error. */
    private void checkBrokerOptions() {
        if (brokers < 1 || brokers > 9) {
            throw new ParameterException(spec.commandLine(), "--brokers must be in 1..9, was " + brokers);
        }
        if (brokerDownSeconds < 1 || brokerDownSeconds > 600) {
            throw new ParameterException(spec.commandLine(), "--broker-down-s must be in 1..600, was " + brokerDownSeconds);
        }
        if (brokerOutage == null) {
            brokerOutage = brokers > 1 ? FaultSchedule.BrokerOutage.CLUSTER_FAULTS : FaultSchedule.BrokerOutage.RESTART;
        }
        boolean clusterOutage = brokerOutage == FaultSchedule.BrokerOutage.LEADER_KILL || brokerOutage == FaultSchedule.BrokerOutage.CLUSTER_FAULTS;
        if (brokers > 1 && !clusterOutage) {
            throw new ParameterException(spec.commandLine(), "--broker-outage " + brokerOutage + " needs --brokers 1, was --brokers " + brokers);
        }
        if (brokers == 1 && clusterOutage) {
            throw new ParameterException(spec.commandLine(), "--broker-outage " + brokerOutage + " needs --brokers 2 or more, was --brokers 1");
        }
    }

    private EmbeddedKafkaCluster cluster() {
        EmbeddedKafkaCluster.Builder b = EmbeddedKafkaCluster.builder().nodes(brokers).separateProcesses();
        if (dataDir != null) {
            b.dataDir(dataDir);
        }
        return b.build().start();
    }

    /** A failed soak's first clue: what the processes still up warned about. */
    /** Lines of the streams apps' output that contain {@code marker}. */
    private static long streamsLines(List<StreamsInstance> streams, String marker) {
        return streams.stream().flatMap(s -> s.output().stream()).filter(l -> l.contains(marker)).count();
    }

    private void printProblems(String process, List<String> output) {
        List<String> problems = output.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
        out.printf("warnings and errors of %s (%d, the last %d shown)%n", process, problems.size(), Math.min(PROBLEM_LINES, problems.size()));
        problems.subList(Math.max(0, problems.size() - PROBLEM_LINES), problems.size()).forEach(l -> out.println("  " + l));
    }

    /** Where the work that never finished is held: behind an open transaction, or behind a group's committed offset. */
    private void printHeldBack(Brokers kafka) throws Exception {
        List<String> topics = new ArrayList<>(List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS));
        SoakPlan.queues().forEach(q -> topics.add(BatonTopics.tasks(q)));
        topics.add(BatonTopics.tasks(SoakPlan.QUEUE, SoakPlan.SERVED_NODE));
        topics.addAll(List.of(BatonTopics.HISTORY, BatonTopics.RESULTS, STREAMS_GROUP + "-sites-changelog", Topic.GROUP_METADATA_TOPIC_NAME));
        List<String> groups = new ArrayList<>();
        SoakPlan.queues().forEach(q -> groups.add(ClientIds.workerGroup(q)));
        groups.add(STREAMS_GROUP);
        try (Admin admin = Admin.create(ClientConfigs.admin(kafka.bootstrapServers()))) {
            List<String> lines = LogVisibility.report(admin, topics, groups);
            out.printf("log visibility (%d partitions held back or not consumed)%n", lines.size());
            lines.forEach(l -> out.println("  " + l));
        }
    }

    /** The streams apps' guarantee, and under at-least-once the token key every instance shares. */
    private List<String> guaranteeConfig() {
        if (guarantee != Guarantee.at_least_once) {
            return List.of();
        }
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return List.of("processing.guarantee=at_least_once", "token.key=" + Base64.getEncoder().encodeToString(key));
    }

    private Run runWorkload(Brokers kafka, CuttableLink link, WorkerRoster workers, List<StreamsInstance> streams, SoakLedger ledger)
            throws Exception {
        Map<String, Object> config = ClientConfigs.settings(kafka.bootstrapServers(), Map.of("baton.client.id", CLIENT_ID));
        long start = System.nanoTime();
        // The one-off faults fall while work is still arriving: at 30% and 60% of the dispatch period; the
        // cluster's faults, several minutes of them one after another, from 15%, and the streams-app kill
        // not before they are over (FaultSchedule), so each recovery is timed alone.
        long dispatchMillis = 1000L * activities / rate;
        long brokerOutageAt = dispatchMillis * (brokerOutage == FaultSchedule.BrokerOutage.CLUSTER_FAULTS ? 15 : 60) / 100;
        FaultSchedule.Plan plan = new FaultSchedule.Plan(Duration.ofSeconds(killEverySeconds), Duration.ofMillis(dispatchMillis * 3 / 10),
                Duration.ofMillis(brokerOutageAt), Duration.ofSeconds(brokerDownSeconds), brokerOutage);
        try (DispatchClient client = DispatchClient.create(config, ledger.unmatchedHandler());
             ResolutionProbe probe = new ResolutionProbe(kafka.bootstrapServers(), SoakPlan.QUEUE, "echo", partitions);
             ClusterFaults clusterFaults = brokerOutage == FaultSchedule.BrokerOutage.CLUSTER_FAULTS
                     ? new ClusterFaults(kafka.cluster(), probe, STREAMS_GROUP, Duration.ofSeconds(3)) : null;
             FaultSchedule faults = kafka.faults(link, clusterFaults, probe, workers, streams, plan, out);
             SoakWorkload workload = new SoakWorkload(client, kafka.bootstrapServers(), ledger, workers)) {
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            for (int i = 0; i < activities; i++) {
                long due = start + (long) (i * 1e9 / rate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop workload
                }
                workload.send(i);
                if (System.nanoTime() >= nextReport) {
                    progress(start, i + 1, ledger, workers.size());
                    nextReport += TimeUnit.SECONDS.toNanos(5);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(timeoutMinutes);
            while (ledger.settled() < ledger.sent() && System.nanoTime() < deadline) {
                TimeUnit.SECONDS.sleep(1); // polling the ledger's count; the progress line every 5 s
                if (System.nanoTime() >= nextReport) {
                    progress(start, activities, ledger, workers.size());
                    nextReport += TimeUnit.SECONDS.toNanos(5);
                }
            }
            progress(start, activities, ledger, workers.size());
            double seconds = (System.nanoTime() - start) / 1e9;
            faults.close();
            return new Run(seconds, faults.log(), faults.failures(), workload.cancelsNotSent(), faults.workerKills());
        }
    }

    private void progress(long start, int dispatched, SoakLedger ledger, int workers) {
        int sent = ledger.sent();
        int settled = ledger.settled();
        out.printf("soak   %6.1f s  activities %d, requests %d, answered %d, in flight %d, %d workers%n", (System.nanoTime() - start) / 1e9,
                dispatched, sent, settled, sent - settled, workers);
    }
}
