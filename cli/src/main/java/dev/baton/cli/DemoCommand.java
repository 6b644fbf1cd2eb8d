package dev.baton.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.HistoryStats;
import dev.baton.schemas.EventExamples;
import dev.baton.schemas.EventExamples.Example;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.HdrHistogram.Histogram;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton demo}: everything on the embedded default, in one JVM — a real broker, Baton's topics,
 * the streams app, three workers on two queues and a dispatcher — running a workload in which some
 * activities fail {@code retryable:} and succeed on retry and some fail {@code terminal:}. Ends with
 * a summary and exits non-zero if any request did not get exactly one outcome.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run Baton end to end on an embedded Kafka broker and print a summary.")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--activities", defaultValue = "20000", description = "Activities to dispatch (default ${DEFAULT-VALUE})")
    int activities;

    @Option(names = "--workers", defaultValue = "3",
            description = "Workers: worker-1, 4, 7... serve payments, 2, 5, 8... both queues, 3, 6, 9... mail (default ${DEFAULT-VALUE})")
    int workerCount;

    @Option(names = "--data-dir", description = "Keep the broker's data here (e.g. ./.baton); default: a temp dir deleted on exit")
    Path dataDir;

    @Option(names = "--keep-running", description = "After the summary, keep everything up for the other commands until Ctrl-C")
    boolean keepRunning;

    @Option(names = "--status-port", defaultValue = "9402", description = "With --keep-running: the streams app's query port (baton status, site describe, sites list) (default ${DEFAULT-VALUE})")
    int statusPort;

    @Option(names = "--registry-port", defaultValue = "8081",
            description = "The Confluent Schema Registry REST API over _baton_schemas, for clients in other languages; 0 = off (default ${DEFAULT-VALUE})")
    int registryPort;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions per topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--commit-interval-ms", defaultValue = "100",
            description = "Streams commit interval: the longest wait between two commits; a stream thread whose input is drained commits sooner (default ${DEFAULT-VALUE})")
    long commitIntervalMs;

    @Option(names = "--no-faults", description = "Do not kill one worker and drain another part-way")
    boolean noFaults;

    @Option(names = "--inject-breach", hidden = true,
            description = "Publish one forged extra outcome before the audit, to prove the audit can fail")
    boolean injectBreach;

    private static final int SLOTS_PER_WORKER = 32;
    /** How long each {@code long} activity runs, heartbeating: the demo's handler input. */
    private static final String LONG_ACTIVITY_MS = "1500";

    private final PrintStream out = System.out;
    private final List<Worker> workers = new ArrayList<>();
    private String firstRequestId;
    /** One namespace per run, so runs on a kept --data-dir never collide on site ids. */
    private final String namespace = "demo-" + UUID.randomUUID().toString().substring(0, 8);

    @Override
    public Integer call() throws Exception {
        if (!noFaults && workerCount < 3) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--workers must be at least 3 with faults on (worker-1 is killed, worker-3 drained); was " + workerCount + "; or add --no-faults");
        }
        if (workerCount < 1) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--workers must be at least 1, was " + workerCount);
        }
        long started = System.nanoTime();
        out.println("starting an embedded Kafka broker, Baton's topics and the streams app ...");
        Map<String, Object> streams = keepRunning
                ? Map.of("commit.interval.ms", commitIntervalMs, "status.port", statusPort, "schema.registry.rest.port", registryPort)
                : Map.of("commit.interval.ms", commitIntervalMs, "schema.registry.rest.port", registryPort);
        try (LocalCluster cluster = LocalCluster.start(partitions, List.of("payments", "mail"), streams, dataDir)) {
            out.printf("cluster   broker %s, streams app RUNNING (%d ms)%n", cluster.bootstrapServers(), millisSince(started));
            if (cluster.streamsApp().schemaRegistryRestPort() > 0) {
                out.printf("registry  http://localhost:%d (Confluent Schema Registry REST API over _baton_schemas)%n",
                        cluster.streamsApp().schemaRegistryRestPort());
            }
            int schemaFailures = roundTripEveryEvent(cluster);
            workers.clear();
            List<String> roster = new ArrayList<>();
            for (int i = 1; i <= workerCount; i++) {
                List<String> queues = switch (i % 3) {
                    case 1 -> List.of("payments");
                    case 2 -> List.of("payments", "mail");
                    default -> List.of("mail");
                };
                WorkerOptions.Builder options = WorkerOptions.builder().workerId("worker-" + i).queues(queues).maxConcurrent(SLOTS_PER_WORKER)
                        .drainTimeout(Duration.ofMillis(300));
                DemoHandlers.all().forEach(options::handler);
                workers.add(cluster.worker(options));
                roster.add("worker-" + i + " " + queues);
            }
            out.println("workers   " + String.join(", ", roster));
            int workloadFailures = runWorkload(cluster);
            if (injectBreach) {
                injectDuplicateOutcome(cluster);
            }
            InvariantChecker.Report audit = InvariantChecker.check(cluster.bootstrapServers());
            Map<HistoryKind, Long> kinds = audit.byKind();
            out.printf("faults    retries %d, transport losses %d, parks %d, refused stale completions %d%n",
                    kinds.getOrDefault(HistoryKind.RETRY_SCHEDULED, 0L),
                    kinds.getOrDefault(HistoryKind.TRANSPORT_LOST, 0L),
                    kinds.getOrDefault(HistoryKind.PARKED, 0L),
                    kinds.getOrDefault(HistoryKind.COMPLETION_REFUSED, 0L));
            out.printf("history   %s%n", kinds);
            printHistoryStats(cluster);
            out.printf("audit     %s%n", audit);
            workloadFailures += audit.ok() ? 0 : 1;
            out.printf("%s    %d ms in all%n", schemaFailures + workloadFailures == 0 ? "ok  " : "FAIL", millisSince(started));
            if (keepRunning) {
                awaitCtrlC(cluster);
            }
            return schemaFailures + workloadFailures == 0 ? 0 : 1;
        }
    }

    private int runWorkload(LocalCluster cluster) throws Exception {
        Histogram latencyMicros = new Histogram(3);
        Map<String, Integer> byKind = new TreeMap<>();
        List<CompletableFuture<ActivityOutcome>> futures = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        try (DispatchClient client = cluster.client("demo", o -> byKind.merge("unmatched", 1, Integer::sum))) {
            long start = System.nanoTime();
            for (int i = 0; i < activities; i++) {
                String type = i % 20 == 0 ? "flaky" : i % 50 == 1 ? "terminal" : i % 10 == 3 ? "long" : "echo";
                String input = type.equals("long") ? LONG_ACTIVITY_MS : "order-" + i;
                expected.add(type);
                long sent = System.nanoTime();
                futures.add(client.dispatch(ActivityRequest.builder().site(namespace, "order-" + i, "charge").queue(i % 2 == 0 ? "payments" : "mail")
                        .activityType(type).input(input.getBytes(StandardCharsets.UTF_8), "text/plain")
                        .retry(new RetryOptions(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 5, List.of()))
                        .heartbeat(Duration.ofSeconds(2)).build())
                        .whenComplete((o, e) -> latencyMicros.recordValue(Math.max(1, (System.nanoTime() - sent) / 1_000))));
            }
            Progress progress = new Progress(out, futures, start);
            if (!noFaults) {
                injectFaults(futures);
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(LocalCluster.PATIENCE.toSeconds() * 5, TimeUnit.SECONDS);
            progress.close();
            double seconds = (System.nanoTime() - start) / 1e9;
            int violations = 0;
            for (int i = 0; i < futures.size(); i++) {
                ActivityOutcome o = futures.get(i).get();
                if (i == 0) {
                    firstRequestId = o.requestId();
                }
                String kind = o.completed() ? (o.attempt() > 1 ? "completed after retries" : "completed") : o.reasonPrefix();
                byKind.merge(kind, 1, Integer::sum);
                boolean ok = switch (expected.get(i)) {
                    case "flaky" -> o.completed() && o.attempt() == 3;
                    case "terminal" -> !o.completed() && Objects.equals(o.reasonPrefix(), "terminal:");
                    case "long" -> o.completed() && o.attempt() == 1;
                    default -> o.completed() && o.outputAsString().equals("order-" + i);
                };
                violations += ok ? 0 : 1;
            }
            out.printf("workload  %d activities in %.1f s (%.0f/s)%n", activities, seconds, activities / seconds);
            byKind.forEach((k, n) -> out.printf("outcome   %-24s %6d%n", k, n));
            out.printf("latency   p50 %.1f ms  p99 %.1f ms  p99.9 %.1f ms (dispatch to outcome)%n",
                    latencyMicros.getValueAtPercentile(50) / 1000.0, latencyMicros.getValueAtPercentile(99) / 1000.0,
                    latencyMicros.getValueAtPercentile(99.9) / 1000.0);
            // Without this line a reader takes the figures above for Baton's own latency (bench dispatch measures that).
            out.printf("          (all %d sent at once: mostly time waiting for one of %d worker slots%s, while one activity in ten "
                    + "holds a slot for %s ms; `baton bench dispatch` measures latency at a fixed rate)%n", activities,
                    workerCount * SLOTS_PER_WORKER, noFaults ? "" : ", fewer after the kill and the drain", LONG_ACTIVITY_MS);
            out.printf("check     every request got exactly one outcome of the expected kind: %s%n",
                    violations == 0 ? "yes" : "NO, " + violations + " did not");
            return violations;
        }
    }

    /**
     * Kills worker-1 (no drain, no park, no tombstone: Baton must notice the silence) once a quarter of
     * the work is resolved, and drains worker-3 at half (its running activities are parked).
     */
    private void injectFaults(List<CompletableFuture<ActivityOutcome>> futures) throws InterruptedException {
        awaitResolved(futures, futures.size() / 4);
        awaitBusy(workers.get(0));
        workers.get(0).kill();
        out.println("fault     worker-1 killed abruptly (its leases will be lost and re-delivered)");
        awaitResolved(futures, futures.size() / 2);
        awaitBusy(workers.get(2));
        workers.get(2).close();
        out.println("fault     worker-3 drained part-way (its running activities are parked)");
    }

    /** Waits (up to 10 s) until the worker holds something, so the fault has work to lose. */
    private static void awaitBusy(Worker worker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (worker.inFlight() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private static void awaitResolved(List<CompletableFuture<ActivityOutcome>> futures, int n) throws InterruptedException {
        while (futures.stream().filter(CompletableFuture::isDone).count() < n) {
            Thread.sleep(20); // polling progress counters for the demo's narrative, not waiting for one event
        }
    }

    /** Publishes a second outcome for an answered request, as a buggy or forged writer could. */
    private void injectDuplicateOutcome(LocalCluster cluster) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                     ClientConfigs.durableProducer(cluster.clientConfig()), new ByteArraySerializer(),
                     new ByteArraySerializer())) {
            Outcome forged = Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED)
                    .setSite(new SiteRef(namespace, "order-0", "charge")).setRequestId(firstRequestId)
                    .setReplyKey("demo").setAttempt(1).setAtMillis(0L).build();
            producer.send(new ProducerRecord<>(BatonTopics.RESULTS, "demo".getBytes(StandardCharsets.UTF_8),
                    EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, forged))).get();
            out.println("injected  a forged second outcome for request " + firstRequestId);
        }
    }

    private int roundTripEveryEvent(LocalCluster cluster) {
        int failures = 0;
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            for (Example example : EventExamples.all()) {
                @SuppressWarnings("unchecked")
                EventSerde<SpecificRecord> serde = EventSerde.of((Class<SpecificRecord>) example.event().getClass(), registry);
                byte[] bytes = serde.encode(example.topic(), example.event());
                boolean same = Objects.equals(serde.decode(example.topic(), bytes), example.event());
                failures += same ? 0 : 1;
            }
        }
        out.printf("schemas   %d event types registered in _baton_schemas and round-tripped, %d failed%n",
                EventExamples.all().size() - failures, failures);
        return failures;
    }

    /** The {@code baton history stats --by type} table for this run, computed by the morsel engine over baton.history. */
    private void printHistoryStats(LocalCluster cluster) {
        try (HistoryLog log = new HistoryLog(cluster.clientConfig(), "kafka://", 2)) {
            Map<String, HistoryStats.Group> groups = new TreeMap<>(HistoryStats.compute(log,
                    new HistoryLog.Scope(Long.MIN_VALUE, namespace), HistoryStats.GroupBy.TYPE));
            out.printf("stats     %-10s %8s %9s %9s %9s   (baton history stats --by type)%n", "type", "sites", "p50 ms", "p99 ms", "max ms");
            groups.forEach((type, g) -> out.printf("stats     %-10s %8d %9s %9s %9s%n", type, g.count(), g.percentile(50), g.percentile(99),
                    g.percentile(100)));
        }
    }

    /** Keeps the cluster up for {@code baton status}, {@code dispatch}, more workers, until Ctrl-C. */
    private void awaitCtrlC(LocalCluster cluster) throws InterruptedException {
        String bootstrap = cluster.bootstrapServers();
        out.println();
        out.println("running   everything stays up until Ctrl-C; try, in another terminal:");
        out.printf("            ./baton status --streams-app http://localhost:%d%n", statusPort);
        out.printf("            echo hi | ./baton dispatch --bootstrap-servers %s --queue mail --type echo --input-file -%n", bootstrap);
        out.printf("            ./baton worker --bootstrap-servers %s --queue payments --demo-handlers%n", bootstrap);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "baton-demo-stop"));
        stop.await();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
