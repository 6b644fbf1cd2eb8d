package dev.baton.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.cli.local.BatonProcess;
import dev.baton.cli.local.CuttableLink;
import dev.baton.cli.local.FaultSchedule;
import dev.baton.cli.local.FaultSchedule.StreamsInstance;
import dev.baton.cli.local.InvariantChecker;
import dev.baton.cli.local.LogVisibility;
import dev.baton.cli.local.TempDirs;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.Outcome;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.events.HistoryKind;
import dev.baton.schemas.Reasons;
import dev.baton.streams.recovery.HangingTransactionReaper;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.internals.Topic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton soak}: the chaos soak of DESIGN §4. An embedded broker in this JVM; the streams app
 * (one or two instances, standby replicas on) and the workers as separate processes; a paced
 * workload from a dispatcher here, while {@link FaultSchedule} kills workers, crashes a streams-app
 * instance and restarts the broker. Then the invariant checker reads history and results. Exits
 * non-zero if any request lacks exactly one outcome of an acceptable kind or any invariant fails.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = "Run a workload while killing workers, a streams-app instance and the broker; then audit every outcome.")
public final class SoakCommand implements Callable<Integer> {

    private static final String QUEUE = "soak";

    @Option(names = "--activities", defaultValue = "100000", description = "Activities to dispatch (default ${DEFAULT-VALUE})")
    int activities;

    @Option(names = "--rate", defaultValue = "300", description = "Dispatches per second (default ${DEFAULT-VALUE})")
    int rate;

    @Option(names = "--workers", defaultValue = "3", description = "Worker processes alive at once (default ${DEFAULT-VALUE})")
    int workerCount;

    @Option(names = "--streams-instances", defaultValue = "2", description = "Streams-app processes (default ${DEFAULT-VALUE})")
    int streamsInstances;

    @Option(names = "--kill-worker-every-s", defaultValue = "10", description = "Seconds between worker kills (default ${DEFAULT-VALUE})")
    int killEverySeconds;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions per topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--data-dir", description = "Broker data directory (default: a temp dir, deleted afterwards)")
    Path dataDir;

    @Option(names = "--broker-outage", defaultValue = "RESTART",
            description = "How the broker goes away once: RESTART (stop, start on its data dir) or DISCONNECT (every connection cut, "
                    + "broker running). Kafka 4.4.0 can lose transaction markers on a single-node restart (KAFKA-20734); see "
                    + "docs/decisions.md (default ${DEFAULT-VALUE})")
    FaultSchedule.BrokerOutage brokerOutage;

    @Option(names = "--timeout-minutes", defaultValue = "60", description = "Give up waiting for outcomes after this long (default ${DEFAULT-VALUE})")
    int timeoutMinutes;

    /** Warning and error lines printed per process when the soak fails. */
    private static final int PROBLEM_LINES = 15;
    /** The streams app's consumer group: its application id, which the soak leaves at the default. */
    private static final String STREAMS_GROUP = "baton-streams";

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
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
        List<BatonProcess> workers = new ArrayList<>();
        List<StreamsInstance> streams = new ArrayList<>();
        try (EmbeddedKafka kafka = broker.build().start()) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(partitions), List.of(QUEUE)));
            }
            out.printf("soak   broker %s, %d activities at %d/s, %d workers, %d streams-app instances%n",
                    kafka.bootstrapServers(), activities, rate, workerCount, streamsInstances);
            for (int i = 1; i <= streamsInstances; i++) {
                Path stateDir = Files.createDirectories(work.resolve("streams-" + i));
                String name = "streams-" + i;
                streams.add(new StreamsInstance(name, () -> BatonProcess.streamsApp(kafka.bootstrapServers(), name, stateDir)));
            }
            for (int i = 1; i <= workerCount; i++) {
                workers.add(BatonProcess.worker(kafka.bootstrapServers(), "soak-worker-" + i, QUEUE, 1_000));
            }
            out.printf("soak   processes up after %.1f s%n", (System.nanoTime() - started) / 1e9);
            Result result = runWorkload(kafka, link, workers, streams);
            workers.forEach(BatonProcess::kill9);
            streams.forEach(StreamsInstance::close);

            InvariantChecker.Report audit = InvariantChecker.check(kafka.bootstrapServers());
            Map<HistoryKind, Long> kinds = audit.byKind();
            out.println();
            out.println("fault log");
            result.faults().forEach(f -> out.println("  " + f));
            out.println("figures");
            out.printf("  activities        %d dispatched, %d resolved in %.1f s (%.0f/s)%n", activities, result.resolved(),
                    result.seconds(), result.resolved() / result.seconds());
            result.outcomes().forEach((k, n) -> out.printf("  outcome           %-28s %7d%n", k, n));
            out.printf("  faults            %d worker kills, %d streams-app crash, %d broker outage (" + brokerOutage + ")%n",
                    result.faults().stream().filter(f -> f.contains("kill -9 worker")).count(),
                    result.faults().stream().filter(f -> f.contains("kill -9 streams")).count(),
                    result.faults().stream().filter(f -> f.contains("broker started") || f.contains("let through again")).count());
            out.printf("  history           transport losses %d, retries %d, parks %d, refused completions %d, timeouts %d%n",
                    kinds.getOrDefault(HistoryKind.TRANSPORT_LOST, 0L), kinds.getOrDefault(HistoryKind.RETRY_SCHEDULED, 0L),
                    kinds.getOrDefault(HistoryKind.PARKED, 0L), kinds.getOrDefault(HistoryKind.COMPLETION_REFUSED, 0L),
                    kinds.getOrDefault(HistoryKind.TIMED_OUT, 0L));
            long hangingAborted = streams.stream().flatMap(s -> s.output().stream()).filter(l -> l.contains(HangingTransactionReaper.ABORTED)).count();
            out.printf("  hanging txns      %d aborted by the streams app (transactions Kafka left open; see docs/decisions.md)%n", hangingAborted);
            out.printf("  wrong outcomes    %d (an outcome of a kind its activity cannot produce)%n", result.wrong());
            out.printf("  audit             %s%n", audit);
            boolean ok = audit.ok() && result.wrong() == 0 && result.resolved() == activities;
            if (!ok) {
                streams.forEach(s -> printProblems(s.name(), s.output()));
                workers.forEach(w -> printProblems(w.name(), w.output()));
                printHeldBack(kafka);
            }
            out.printf("%s   %.1f s in all%n", ok ? "ok  " : "FAIL", (System.nanoTime() - started) / 1e9);
            return ok ? 0 : 1;
        } finally {
            workers.forEach(BatonProcess::close);
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

    private record Result(int resolved, int wrong, double seconds, Map<String, Integer> outcomes, List<String> faults) {
    }

    /** A failed soak's first clue: what the processes still up warned about. */
    private void printProblems(String process, List<String> output) {
        List<String> problems = output.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
        out.printf("warnings and errors of %s (%d, the last %d shown)%n", process, problems.size(), Math.min(PROBLEM_LINES, problems.size()));
        problems.subList(Math.max(0, problems.size() - PROBLEM_LINES), problems.size()).forEach(l -> out.println("  " + l));
    }

    /** Where the work that never finished is held: behind an open transaction, or behind a group's committed offset. */
    private void printHeldBack(EmbeddedKafka kafka) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            List<String> lines = LogVisibility.report(admin, List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, BatonTopics.tasks(QUEUE),
                    BatonTopics.HISTORY, BatonTopics.RESULTS, STREAMS_GROUP + "-sites-changelog", Topic.GROUP_METADATA_TOPIC_NAME),
                    List.of(ClientIds.workerGroup(QUEUE), STREAMS_GROUP));
            out.printf("log visibility (%d partitions held back or not consumed)%n", lines.size());
            lines.forEach(l -> out.println("  " + l));
        }
    }

    private Result runWorkload(EmbeddedKafka kafka, CuttableLink link, List<BatonProcess> workers, List<StreamsInstance> streams)
            throws Exception {
        AtomicInteger resolved = new AtomicInteger();
        AtomicInteger wrong = new AtomicInteger();
        Map<String, Integer> outcomes = new ConcurrentHashMap<>();
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers(), "baton.client.id", "soak"));
        long start = System.nanoTime();
        // The one-off faults fall while work is still arriving: at 30% and 60% of the dispatch period.
        long dispatchMillis = 1000L * activities / rate;
        FaultSchedule.Plan plan = new FaultSchedule.Plan(Duration.ofSeconds(killEverySeconds), Duration.ofMillis(dispatchMillis * 3 / 10),
                Duration.ofMillis(dispatchMillis * 6 / 10), Duration.ofSeconds(3), brokerOutage);
        try (DispatchClient client = DispatchClient.create(config, o -> outcomes.merge("unmatched (late, after a client restart)", 1, Integer::sum));
             FaultSchedule faults = new FaultSchedule(kafka, link, QUEUE, workers, streams, plan, out)) {
            List<CompletableFuture<Outcome>> futures = new ArrayList<>(activities);
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            for (int i = 0; i < activities; i++) {
                long due = start + (long) (i * 1e9 / rate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop workload
                }
                String type = i % 25 == 0 ? "flaky" : i % 40 == 1 ? "terminal" : i % 50 == 3 ? "long" : "echo";
                String input = type.equals("long") ? "1500" : "soak-" + i;
                futures.add(client.dispatch(request(i, type, input)).whenComplete((o, e) -> {
                    resolved.incrementAndGet();
                    String kind = e != null ? "client error: " + e.getClass().getSimpleName() : o.completed() ? "completed" : o.reasonPrefix();
                    outcomes.merge(kind, 1, Integer::sum);
                    if (!acceptable(type, input, o, e)) {
                        wrong.incrementAndGet();
                    }
                }));
                if (System.nanoTime() >= nextReport) {
                    progress(start, i + 1, resolved.get(), workers.size());
                    nextReport += TimeUnit.SECONDS.toNanos(5);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(timeoutMinutes);
            while (resolved.get() < activities && System.nanoTime() < deadline) {
                CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).completeOnTimeout(null, 5, TimeUnit.SECONDS).join();
                progress(start, activities, resolved.get(), workers.size());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            faults.close();
            return new Result(resolved.get(), wrong.get(), seconds, new TreeMap<>(outcomes), faults.log());
        }
    }

    private static ActivityRequest request(int i, String type, String input) {
        return ActivityRequest.builder().site("soak", "wf-" + i, "step").queue(QUEUE).activityType(type)
                .input(input.getBytes(StandardCharsets.UTF_8), "text/plain")
                .retry(new RetryOptions(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 5, List.of()))
                .heartbeat(Duration.ofSeconds(2)).build();
    }

    /**
     * What each activity may end as. Worker loss never consumes an attempt, so flaky work still
     * completes on attempt 3; a site whose workers keep dying may end {@code transport-exhausted:},
     * which is the budget doing its job, not a loss.
     */
    private static boolean acceptable(String type, String input, Outcome o, Throwable error) {
        if (error != null) {
            return false;
        }
        if (!o.completed() && Reasons.TRANSPORT_EXHAUSTED.equals(o.reasonPrefix())) {
            return true;
        }
        return switch (type) {
            case "flaky" -> o.completed() && o.attempt() == 3;
            case "terminal" -> !o.completed() && "terminal:".equals(o.reasonPrefix());
            case "long" -> o.completed();
            default -> o.completed() && o.outputAsString().equals(input);
        };
    }

    private void progress(long start, int dispatched, int resolved, int workers) {
        out.printf("soak   %6.1f s  dispatched %d, resolved %d, in flight %d, %d workers%n", (System.nanoTime() - start) / 1e9,
                dispatched, resolved, dispatched - resolved, workers);
    }
}
