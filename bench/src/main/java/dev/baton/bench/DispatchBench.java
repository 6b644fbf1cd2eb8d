package dev.baton.bench;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.testkit.LocalCluster;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code baton bench dispatch}: in one process on the embedded broker, (a) a raw-Kafka three-hop echo
 * (dispatch → tasks → completions with plain consumer/producer stages, the same partitions and
 * record size: the floor of any Kafka-based dispatcher here), (b) Kafka alone in the shape of Baton's at-least-once path
 * ({@link ShapeEcho}: the floor Kafka's own work sets for Baton's records, before any rule) and (c) Baton end to end with
 * no-op activities, once per delivery guarantee (exactly-once and at-least-once by default). For each it
 * measures max sustained throughput and latency at fixed rates from the intended send time (no
 * coordinated omission), then prints them side by side with the ratios to the raw echo, the records
 * Baton writes per activity, its CPU per activity, and the CPU other processes used during the run.
 *
 * <p>Each guarantee runs on a broker and streams app of its own, started after the previous one
 * closed, on the same kind of storage: a streams app reading the other's topics would replay its
 * sites, and a second app id on one broker would share its partitions' leaders and log segments.
 */
@Command(name = "dispatch", mixinStandardHelpOptions = true, description = "Baton vs a raw Kafka three-hop echo, same broker, same run.")
public final class DispatchBench implements Callable<Integer> {

    @Option(names = "--rates", defaultValue = "200,2000,10000", split = ",",
            description = "Fixed rates per second; a rate above what a pipeline sustains shows as latency growing with the backlog (default ${DEFAULT-VALUE})")
    int[] rates;

    @Option(names = "--seconds", defaultValue = "10", description = "Duration of each fixed-rate run (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--burst", defaultValue = "20000",
            description = "Fewest activities per burst (three bursts; the median is reported) to measure max throughput; more if the warm-up shows the pipeline would finish them in under "
                    + BURST_SECONDS + " s (default ${DEFAULT-VALUE})")
    int burst;

    @Option(names = "--warm-up", defaultValue = "5000",
            description = "Activities per unmeasured warm-up round; rounds repeat until the JIT compiler is nearly idle (default ${DEFAULT-VALUE})")
    int warmUpRound;

    @Option(names = "--warm-up-seconds", defaultValue = "150",
            description = "Longest warm-up per pipeline; at least one round runs (default ${DEFAULT-VALUE})")
    int warmUpSeconds;

    @Option(names = "--partitions", defaultValue = "6")
    int partitions;

    @Option(names = "--payload-bytes", defaultValue = "100")
    int payloadBytes;

    @Option(names = "--worker-concurrency", defaultValue = "1024",
            description = "Activities the bench worker runs at once; a full worker leases a quarter of them per transaction (default ${DEFAULT-VALUE})")
    int workerConcurrency;

    @Option(names = "--commit-interval-ms", description = "Streams commit interval of the Baton side (default: the streams app's)")
    Long commitIntervalMs;

    @Option(names = "--streams-config", description = "Extra streams-app settings for the Baton side, key=value (repeatable)")
    Map<String, String> streamsConfig = Map.of();

    @Option(names = "--stream-threads", description = "Stream threads of the Baton side (default: the streams app's)")
    Integer streamThreads;

    @Option(names = "--data-dir", description = "Where the broker's logs and the streams app's state live during the run (default: "
            + "/dev/shm when it is a tmpfs with 8 GiB free, else the temp dir); a directory is made in it and deleted after")
    Path dataDir;

    @Option(names = "--guarantees", defaultValue = "exactly_once_v2,at_least_once", split = ",",
            description = "The streams app's processing.guarantee for each Baton run, in order, ${COMPLETION-CANDIDATES} "
                    + "(at-least-once runs with a generated token.key and a worker leasing plainly) (default ${DEFAULT-VALUE})")
    List<Guarantee> guarantees;

    @Option(names = "--kafka-shape", defaultValue = "true", negatable = true, fallbackValue = "true",
            description = "Also measure Kafka alone in the shape of Baton's at-least-once path (a Kafka Streams app with the streams app's"
                    + " settings, 8 records and two row writes per activity, no rules): the floor Kafka sets before Baton decides anything"
                    + " (default ${DEFAULT-VALUE})")
    boolean kafkaShape;

    @Option(names = "--baton-first",
            description = "Measure Baton before the raw echo and the kafka shape instead of after them: a pipeline measured later runs in"
                    + " a JVM whose JIT profiles and heap the earlier ones shaped, so alternate the order to see what it costs"
                    + " (default: Baton last)")
    boolean batonFirst;

    @Spec
    CommandSpec spec;

    private static final String RAW = "raw three-hop";
    private static final String SHAPE = "kafka shape";
    /** The token key of an at-least-once run without one in --streams-config: random, for this run only. */
    private static final String TOKEN_KEY = Base64.getEncoder().encodeToString(new SecureRandom().generateSeed(32));
    private final PrintStream out = System.out;
    private final Map<String, BurstCpu> burstCpu = new HashMap<>();
    /** The clock Baton's processes stamp their events with; the hop breakdown compares against it. */
    private static final Clock WALL = Clock.systemUTC();
    /** A burst the pipeline finishes in a fraction of a second measures its start and end, not its rate. */
    private static final int BURST_SECONDS = 5;
    /** The warm-up ends once the JIT compiler used less than this share of one core over the last window. */
    private static final double QUIET_JIT_SHARE = 0.10;
    private static final int QUIET_WINDOW_SECONDS = 5;
    /** Bursts per pipeline; the median is reported, with the spread, since runs here vary by +-20%. */
    private static final int BURSTS = 3;
    /** Id blocks of the bursts: far below the fixed-rate runs' blocks (1e9 apart), far above any burst's size. */
    private static final long BURST_ID_SPACING = 300_000_000L;

    /** A Baton run's delivery guarantee; the name in the output. */
    enum Guarantee {
        exactly_once_v2("exactly-once"), at_least_once("at-least-once");

        final String label;

        Guarantee(String label) {
            this.label = label;
        }
    }

    /** What one pipeline's run measured, for the side-by-side table. */
    private record Measured(String name, long sent, long maxPerSecond, List<Histogram> atRates, long microsPerActivity, String records) {
    }

    @Override
    public Integer call() throws Exception {
        if (streamsConfig.containsKey("processing.guarantee")) {
            throw new ParameterException(spec.commandLine(), "--streams-config processing.guarantee=" + streamsConfig.get("processing.guarantee")
                    + ": the guarantee of each Baton run is set by --guarantees (e.g. --guarantees at_least_once)");
        }
        List<StreamsAppConfig> configs = new ArrayList<>();
        for (Guarantee g : guarantees) {
            configs.add(new StreamsAppConfig(streamsSettings(g))); // a bad --streams-config fails here, not after the raw echo
        }
        Path runDir = Files.createTempDirectory(BenchStorage.parent(dataDir), "baton-bench-");
        try {
            return run(configs, runDir);
        } finally {
            TempDirs.deleteQuietly(runDir);
        }
    }

    private int run(List<StreamsAppConfig> configs, Path runDir) throws Exception {
        out.printf("storage     broker logs and streams state in %s (%s)%n", runDir, BenchStorage.type(runDir));
        MachineReference.Figures machineBefore = MachineReference.measure();
        long cpuStart = OtherCpu.othersJiffies();
        long wallStart = System.nanoTime();
        List<Measured> all = new ArrayList<>();
        for (int g = 0; g < guarantees.size(); g++) {
            Path dir = runDir.resolve(guarantees.get(g).name());
            Map<String, Object> settings = streamsSettings(guarantees.get(g));
            settings.put("state.dir", dir.resolve("streams-state").toString());
            long rocksDbFrom;
            long rocksDbPhase;
            long[] rocksDbClosed = {-1}; // when the peers run after Baton, as its streams app has closed, before theirs begin
            Measured baton;
            try (LocalCluster cluster = LocalCluster.start(partitions, List.of("bench"), settings, dir.resolve("kafka"))) {
                if (g == 0 && !batonFirst) {
                    measurePeers(cluster, runDir, all, () -> { });
                }
                rocksDbFrom = rocksDbNanos();
                baton = measureBaton(guarantees.get(g).label, configs.get(g), cluster);
                all.add(baton);
                rocksDbPhase = rocksDbNanos();
                if (g == guarantees.size() - 1 && batonFirst) {
                    measurePeers(cluster, runDir, all, () -> rocksDbClosed[0] = rocksDbNanos());
                }
            }
            printRocksDbWholePhase(baton, rocksDbFrom, rocksDbPhase, rocksDbClosed[0] >= 0 ? rocksDbClosed[0] : rocksDbNanos());
        }
        printSideBySide(all);
        double wall = (System.nanoTime() - wallStart) / 1e9;
        // System-wide and per-process tick counts are sampled apart, so "nothing" can read as -1%.
        out.printf("noise       other processes used %.1f%% of one core during the run (+-1%%)%n",
                Math.max(0.0, 100.0 * (OtherCpu.othersJiffies() - cpuStart) / OtherCpu.HZ / wall));
        out.printf("machine     reference work before the run: %s; after: %s (compare runs only at similar figures)%n",
                machineBefore.describe(), MachineReference.measure().describe());
        return 0;
    }

    /**
     * The raw echo and, unless skipped, the kafka shape, put first in {@code all} in that order (the side-by-side table's
     * ratios are to the raw echo). They run while Baton's streams app is stopped: its idle polls and punctuations would
     * count in their CPU per activity (and its threads in the shape's streams-app role). It starts again after, on the
     * same broker, with nothing read yet.
     */
    private void measurePeers(LocalCluster cluster, Path runDir, List<Measured> all, Runnable whenBatonStopped) throws Exception {
        List<Measured> peers = new ArrayList<>();
        cluster.restartStreamsAppOnEmptyDisk(() -> {
            whenBatonStopped.run();
            try {
                try (RawEcho echo = new RawEcho(cluster.bootstrapServers(), partitions, payloadBytes)) {
                    peers.add(measure(RAW, echo, new ArrayList<>(), null, "3 (by construction)"));
                }
                if (kafkaShape) {
                    peers.add(measureShape(cluster.bootstrapServers(), runDir.resolve("shape-state")));
                }
            } catch (Exception e) {
                throw new IllegalStateException("measuring the raw echo or the kafka shape failed: " + e, e);
            }
        });
        all.addAll(0, peers);
    }

    /** Kafka alone in Baton's at-least-once shape ({@link ShapeEcho}), with the records it wrote counted as Baton's are. */
    private Measured measureShape(String bootstrap, Path stateDir) throws Exception {
        Map<String, Object> settings = streamsSettings(Guarantee.at_least_once);
        StreamsAppConfig config = new StreamsAppConfig(settings);
        out.printf("%-14s Kafka Streams with the at-least-once streams app's settings (commit.interval.ms=%d, num.stream.threads=%d; commits on"
                + " the interval), a plain worker, no rules%n", SHAPE, config.commitIntervalMs(), config.streamThreads());
        Map<String, Long> before = recordsByTopic(bootstrap, ShapeEcho::owns);
        Map<String, Long> bytesBefore = LogBytes.byTopic(bootstrap, ShapeEcho::owns);
        long rocksDbFrom = rocksDbNanos();
        long rocksDbPhase;
        Measured shape;
        try (ShapeEcho echo = new ShapeEcho(bootstrap, partitions, payloadBytes, settings, stateDir)) {
            Measured m = measure(SHAPE, echo, new ArrayList<>(), null, null);
            rocksDbPhase = rocksDbNanos();
            String breakdown = recordsPerActivity(before, recordsByTopic(bootstrap, ShapeEcho::owns), m.sent());
            out.printf("records     %s wrote %s%n", SHAPE, breakdown.replace("Baton's topics", "its topics"));
            out.printf("bytes       %s's logs grew by %s%n", SHAPE, LogBytes.perActivity(bytesBefore, LogBytes.byTopic(bootstrap, ShapeEcho::owns), m.sent()));
            printCpu(SHAPE);
            shape = new Measured(m.name(), m.sent(), m.maxPerSecond(), m.atRates(), m.microsPerActivity(),
                    breakdown.substring(0, breakdown.indexOf(' ')));
        }
        // As for Baton's: the bursts' share of RocksDB's flushes and compactions depends on when they fall, so the whole run's too.
        printRocksDbWholePhase(shape, rocksDbFrom, rocksDbPhase, rocksDbNanos());
        return shape;
    }

    private Measured measureBaton(String name, StreamsAppConfig streams, LocalCluster cluster) throws Exception {
        WorkerOptions.Builder worker = WorkerOptions.builder().workerId("bench-worker").queues("bench").maxConcurrent(workerConcurrency)
                .handler("noop", (ctx, input) -> input)
                .leaseMode(streams.atLeastOnce() ? LeaseMode.PLAIN : LeaseMode.TRANSACTIONAL); // the worker path each mode is meant for
        Worker benchWorker = cluster.worker(worker);
        Map<String, Long> before = recordsByTopic(cluster.bootstrapServers());
        Map<String, Long> bytesBefore = LogBytes.byTopic(cluster.bootstrapServers(), DispatchBench::batonTopic);
        List<Map<String, HopBreakdown.Sample>> samples = new ArrayList<>();
        out.printf("%-14s streams app: processing.guarantee=%s, commit.pacing=%s, commit.interval.ms=%d, num.stream.threads=%d%n", name,
                streams.atLeastOnce() ? "at_least_once" : "exactly_once_v2",
                streams.commitPacing().configName(), streams.commitIntervalMs(), streams.streamThreads());
        Measured m;
        try (BatonEcho echo = new BatonEcho(cluster, payloadBytes)) {
            m = measure(name, echo, samples, new StreamThreadsUse(cluster.streamsApp().streams()), null);
        } finally {
            benchWorker.close(); // idle, its polls would count in the pipelines measured after it
        }
        Set<String> sampled = new HashSet<>();
        samples.forEach(s -> sampled.addAll(s.keySet()));
        HopBreakdown hops = HopBreakdown.read(cluster.bootstrapServers(), sampled);
        for (int i = 0; i < rates.length; i++) {
            hops.print(out, String.format("at %5d/s", rates[i]), samples.get(i));
        }
        printStreamsLoop(cluster);
        String breakdown = recordsPerActivity(before, recordsByTopic(cluster.bootstrapServers()), m.sent());
        String records = breakdown.substring(0, breakdown.indexOf(' '));
        out.printf("records     %s wrote %s (offsets, so transaction markers count)%n", name, breakdown);
        out.printf("bytes       %s's logs grew by %s%n", name,
                LogBytes.perActivity(bytesBefore, LogBytes.byTopic(cluster.bootstrapServers(), DispatchBench::batonTopic), m.sent()));
        printCpu(name);
        return new Measured(m.name(), m.sent(), m.maxPerSecond(), m.atRates(), m.microsPerActivity(), records);
    }

    /**
     * The figures of every pipeline in one table, each Baton figure with its ratio to the raw echo's:
     * throughput as baton/raw (the "≥ 0.2 of raw"), latency and CPU as multiples.
     */
    private void printSideBySide(List<Measured> all) {
        Measured raw = all.get(0);
        StringBuilder head = new StringBuilder(String.format("%n%-22s", "side by side"));
        all.forEach(m -> head.append(String.format("%24s", m.name())));
        out.println(head);
        row(all, "max sustained /s", m -> String.format("%d", m.maxPerSecond()),
                m -> String.format(" (%.2f)", (double) m.maxPerSecond() / Math.max(1, raw.maxPerSecond())));
        for (int k = 0; k < rates.length; k++) {
            int rate = k;
            for (double pct : new double[] {50, 99}) {
                row(all, String.format("p%.0f at %d/s (ms)", pct, rates[k]), m -> ms(m.atRates().get(rate), pct),
                        m -> String.format(" (%.1fx)", m.atRates().get(rate).getValueAtPercentile(pct)
                                / (double) Math.max(1, raw.atRates().get(rate).getValueAtPercentile(pct))));
            }
        }
        row(all, "cpu per activity (us)", m -> String.format("%d", m.microsPerActivity()),
                m -> String.format(" (%.1fx)", (double) m.microsPerActivity() / Math.max(1, raw.microsPerActivity())));
        row(all, "records per activity", Measured::records, m -> "");
        all.stream().filter(m -> m.name().equals(SHAPE)).findFirst().ifPresent(shape -> all.stream()
                .filter(m -> m.name().equals(Guarantee.at_least_once.label)).findFirst().ifPresent(alo -> out.printf(
                        "%s against the %s (Kafka's own work in the same shape): max sustained %.2f of it, cpu per activity %.2fx%n",
                        alo.name(), SHAPE, (double) alo.maxPerSecond() / Math.max(1, shape.maxPerSecond()),
                        (double) alo.microsPerActivity() / Math.max(1, shape.microsPerActivity()))));
    }

    private void row(List<Measured> all, String label, Function<Measured, String> figure,
            Function<Measured, String> ratio) {
        StringBuilder line = new StringBuilder(String.format("%-22s", label));
        for (int i = 0; i < all.size(); i++) {
            line.append(String.format("%24s", figure.apply(all.get(i)) + (i == 0 ? "" : ratio.apply(all.get(i)))));
        }
        out.println(line);
    }

    private static String ms(Histogram h, double percentile) {
        return String.format("%.1f", h.getValueAtPercentile(percentile) / 1000.0);
    }

    private Map<String, Object> streamsSettings(Guarantee guarantee) {
        Map<String, Object> settings = new HashMap<>(streamsConfig);
        settings.put("processing.guarantee", guarantee.name());
        if (guarantee == Guarantee.at_least_once && !settings.containsKey(StreamsAppConfig.TOKEN_KEY_CONFIG)) {
            settings.put(StreamsAppConfig.TOKEN_KEY_CONFIG, TOKEN_KEY); // the mode requires one; any key does for a run
        }
        if (commitIntervalMs != null) {
            settings.put("commit.interval.ms", commitIntervalMs);
        }
        if (streamThreads != null) {
            settings.put("num.stream.threads", streamThreads);
        }
        return settings;
    }

    /**
     * CPU per activity in the bursts, by role: on a machine the whole pipeline saturates, max throughput
     * is cores divided by this, so it says which part to make cheaper.
     */
    private void printCpu(String name) {
        BurstCpu baton = burstCpu.get(name);
        out.printf("cpu         in the bursts, per activity (us): %s%s %d = %s%n", raw(r -> String.valueOf(r.microsPerActivity())), name,
                baton.microsPerActivity(), CpuByRole.perUnit(baton.from(), baton.to(), baton.activities()));
        out.printf("alloc       in the bursts, per activity (KB): %s%s %s%n",
                raw(r -> CpuByRole.allocatedPerUnit(r.from(), r.to(), r.activities()).split(" = ")[0]), name,
                CpuByRole.allocatedPerUnit(baton.from(), baton.to(), baton.activities()));
        out.printf("requests    the broker served in the bursts, per activity: %s%s %s%n",
                raw(r -> r.requestsTo().perUnitSince(r.requestsFrom(), r.activities()).split(" = ")[0]), name,
                baton.requestsTo().perUnitSince(baton.requestsFrom(), baton.activities()));
        out.printf("gc          %s; in the bursts: %s%s %s%n", GcTime.collector(), raw(r -> r.gcTo().since(r.gcFrom())), name,
                baton.gcTo().since(baton.gcFrom()));
        // What the young collections copied: unlike their pauses and CPU, it does not grow with the machine's load.
        out.printf("gc kept     survivors and promotions of young collections in the bursts: %s%s %s%n",
                raw(r -> r.gcTo().keptSince(r.gcFrom(), r.activities())), name, baton.gcTo().keptSince(baton.gcFrom(), baton.activities()));
    }

    /** "raw {figure}; " when the raw echo ran before this line (not so under {@code --baton-first}: then its own lines give it). */
    private String raw(Function<BurstCpu, String> figure) {
        BurstCpu raw = burstCpu.get(RAW);
        return raw == null ? "" : "raw " + figure.apply(raw) + "; ";
    }

    private static long rocksDbNanos() {
        return NativeThreads.nanosByKind().getOrDefault("RocksDB", 0L);
    }

    /**
     * RocksDB's threads over a whole run of Baton or the kafka shape: the burst figures miss the flushes and compactions a burst leaves
     * behind, and a larger write buffer defers more of them (docs/decisions.md, issue 29). Counted from the start of
     * the run's warm-up until its streams app has closed, which flushes every store's memtables and waits for the
     * compactions running; RocksDB's background threads belong to its default environment and outlive the stores, so
     * their counters still hold it all. What the close leaves unscheduled is not counted.
     */
    private void printRocksDbWholePhase(Measured pipeline, long from, long phaseEnd, long closed) {
        out.printf("rocksdb     %s over the whole run until its stores closed, per activity sent (%d): %.1f us (%.0f ms; of it %.0f ms"
                        + " after the run's last figure, in the close)%n", pipeline.name(), pipeline.sent(), (closed - from) / 1e3 / Math.max(1, pipeline.sent()),
                (closed - from) / 1e6, (closed - phaseEnd) / 1e6);
    }

    /**
     * Where a Streams hop's time goes: every activity waits for two of the streams app's commits on
     * its way (task out, result out), so the commit's own latency bounds the end-to-end latency.
     * Streams reports a commit's latency divided by the tasks it committed (all of a thread's tasks
     * with new input commit together), so a commit takes that times the tasks with input.
     * These are the streams metrics' windowed figures (Kafka's default window: the last 30-60 s),
     * which take in the quiet time after the last run; each fixed rate's own commit rate is on its
     * {@code streams at} line.
     */
    private void printStreamsLoop(LocalCluster cluster) {
        Map<String, Double> m = StreamThreadsUse.sums(cluster.streamsApp().streams(), "stream-thread-metrics");
        out.printf("streams     commit %.1f ms avg per task in it (max %.1f ms), %.0f commits/s; poll %.1f ms avg, %.1f records per poll; process %.1f records per loop%n",
                m.getOrDefault("commit-latency-avg", 0.0), m.getOrDefault("commit-latency-max", 0.0), m.getOrDefault("commit-rate", 0.0),
                m.getOrDefault("poll-latency-avg", 0.0), m.getOrDefault("poll-records-avg", 0.0), m.getOrDefault("process-records-avg", 0.0));
    }

    /**
     * Runs the burst and every fixed rate; returns what it measured ({@code records} is filled in by the caller). Adds
     * to {@code samples} one map per rate: site key → intended send and receipt times. With
     * {@code streamThreads} (Baton's side) each rate also reports the stream threads' commits and CPU.
     */
    private Measured measure(String name, Echo echo, List<Map<String, HopBreakdown.Sample>> samples, StreamThreadsUse streamThreads,
            String records) throws Exception {
        WarmUp warm = warmUp(name, echo);
        long activities = Math.max(burst, (long) (warm.windowPerSecond() * BURST_SECONDS));
        // One burst of the measured size first, unmeasured: the warm-up's rounds are smaller, and a pipeline's first burst at
        // its limit compiled code they had not run (at-least-once: the JIT took 11.9 us per activity in the measured bursts;
        // 3.0 after rounds of 40,000; docs/decisions.md, "The bursts measured after one of their size").
        long warmBurst = burst(echo, -(warm.activities() + activities), activities);
        out.printf("%-14s warm-up burst: %d activities at %d/s, unmeasured%n", name, activities, warmBurst);
        long[] perSecond = new long[BURSTS];
        CpuByRole.Snapshot cpuBefore = CpuByRole.snapshot();
        GcTime gcBefore = GcTime.now();
        BrokerRequests requestsBefore = BrokerRequests.now();
        for (int b = 0; b < BURSTS; b++) {
            perSecond[b] = burst(echo, b * BURST_ID_SPACING, activities);
        }
        burstCpu.put(name, new BurstCpu(cpuBefore, CpuByRole.snapshot(), activities * BURSTS, gcBefore, GcTime.now(), requestsBefore,
                BrokerRequests.now()));
        long[] sorted = perSecond.clone();
        Arrays.sort(sorted);
        long throughput = sorted[BURSTS / 2];
        out.printf("%-14s max sustained: %d activities x %d bursts, median %d/s (min %d/s, max %d/s)%n", name, activities, BURSTS,
                throughput, sorted[0], sorted[BURSTS - 1]);
        long sent = activities * (BURSTS + 1) + warm.activities();
        List<Histogram> atRates = new ArrayList<>();
        for (int k = 0; k < rates.length; k++) {
            int rate = rates[k];
            Map<String, HopBreakdown.Sample> seen = new ConcurrentHashMap<>();
            samples.add(seen);
            // Ids (hence sites) are new in every run: a site seen before would be answered from the
            // streams app's dedupe window without running, and flatter Baton.
            StreamThreadsUse.Mark before = streamThreads == null ? null : streamThreads.mark();
            Histogram h = fixedRate(echo, (k + 1) * 1_000_000_000L, rate, seconds, seen);
            StreamThreadsUse.Mark after = streamThreads == null ? null : streamThreads.mark();
            sent += h.getTotalCount();
            atRates.add(h);
            out.printf("%-14s at %5d/s: p50 %7.1f ms  p99 %7.1f ms  p99.9 %7.1f ms  (n=%d, from intended send time)%n", name, rate,
                    h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
                    h.getTotalCount());
            if (streamThreads != null) {
                out.printf("%-14s at %5d/s: %s%n", "streams", rate, StreamThreadsUse.between(before, after));
            }
        }
        return new Measured(name, sent, throughput, atRates, burstCpu.get(name).microsPerActivity(), records);
    }

    /** Sends {@code activities} at once from id {@code firstId}; returns activities per second until the last outcome. */
    private static long burst(Echo echo, long firstId, long activities) throws Exception {
        long start = System.nanoTime();
        echo.sendAll(firstId, activities).get(10, TimeUnit.MINUTES);
        return (long) (activities / ((System.nanoTime() - start) / 1e9));
    }

    /**
     * Runs rounds of activities, unmeasured, until the JIT compiler spent under a tenth of a core over
     * the last {@link #QUIET_WINDOW_SECONDS} s (or {@code --warm-up-seconds} ran out). Without it the
     * first pipeline measured warms the broker's and clients' code for the second, and on two cores
     * C2 alone took two thirds of a core during Baton's burst. Judged over seconds, not one round: a
     * sub-second round often caught a lull, and C2 kept 10-60 us of CPU per activity for a minute
     * after a round had looked quiet.
     */
    private WarmUp warmUp(String name, Echo echo) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmUpSeconds);
        long sent = 0;
        double jitShare;
        double windowSeconds;
        long windowSent;
        do {
            long jitBefore = jit.getTotalCompilationTime();
            long windowStart = System.nanoTime();
            windowSent = 0;
            do {
                sent += warmUpRound;
                windowSent += warmUpRound;
                burst(echo, -sent, warmUpRound); // negative ids: never a measured site
                windowSeconds = (System.nanoTime() - windowStart) / 1e9;
            } while (windowSeconds < QUIET_WINDOW_SECONDS && System.nanoTime() < deadline);
            jitShare = (jit.getTotalCompilationTime() - jitBefore) / (windowSeconds * 1e3);
        } while (jitShare > QUIET_JIT_SHARE && System.nanoTime() < deadline);
        out.printf("%-14s warm-up: %d activities, JIT compiling %.0f%% of one core over the last %.1f s%n", name, sent, 100 * jitShare,
                windowSeconds);
        return new WarmUp(sent, (long) (windowSent / windowSeconds));
    }

    /**
     * {@code windowPerSecond} is the rate over the whole last window, which sizes the bursts. The rate of
     * the last round alone (a few milliseconds of the raw echo) varied tenfold between runs, and so did
     * the raw burst's size (110k or 1.4M activities) and with it the raw figure (see docs/decisions.md).
     */
    private record WarmUp(long activities, long windowPerSecond) { }

    /** CPU across one pipeline's three bursts, the figures max sustained throughput is taken from. */
    private record BurstCpu(CpuByRole.Snapshot from, CpuByRole.Snapshot to, long activities, GcTime gcFrom, GcTime gcTo,
            BrokerRequests requestsFrom, BrokerRequests requestsTo) {
        long microsPerActivity() {
            return CpuByRole.micros(to.processNanos() - from.processNanos(), activities);
        }
    }

    /** Sends at the intended times and measures from them, so a stall counts against every request it delays. */
    private static Histogram fixedRate(Echo echo, long firstId, int rate, int seconds, Map<String, HopBreakdown.Sample> seen)
            throws Exception {
        Histogram h = new SynchronizedHistogram(3);
        long intervalNanos = 1_000_000_000L / rate;
        long n = (long) rate * seconds;
        long start = System.nanoTime();
        long startMillis = WALL.millis();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            long intended = start + i * intervalNanos;
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait); // pacing the sender to its schedule
            }
            long id = firstId + i;
            long intendedMillis = startMillis + i * intervalNanos / 1_000_000;
            all.add(echo.send(id).thenRun(() -> {
                h.recordValue(Math.max(1, (System.nanoTime() - intended) / 1_000));
                seen.put(siteKey(id), new HopBreakdown.Sample(intendedMillis, WALL.millis()));
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        return h;
    }

    private static String siteKey(long id) {
        return "bench/w" + id + "/1";
    }

    /**
     * Log-end offsets summed per topic (Baton's and the broker's internal topics; not the raw echo's or the Kafka shape's).
     * Offsets count transaction markers too: each commit writes one to every partition it touched.
     */
    static Map<String, Long> recordsByTopic(String bootstrap) throws Exception {
        return recordsByTopic(bootstrap, DispatchBench::batonTopic);
    }

    private static boolean batonTopic(String topic) {
        return !topic.startsWith("bench.raw") && !ShapeEcho.owns(topic);
    }

    /** Log-end offsets summed per topic, of the broker's internal topics and those {@code counted} takes. */
    static Map<String, Long> recordsByTopic(String bootstrap, Predicate<String> counted) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
                if (!d.name().startsWith("__") && !counted.test(d.name())) {
                    continue;
                }
                d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            Map<String, Long> byTopic = new TreeMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, o) -> byTopic.merge(tp.topic(), o.offset(), Long::sum));
            return byTopic;
        }
    }

    /**
     * "11.0 per activity: baton.history 3.0, ..." — Baton's own topics and its changelogs, largest
     * first; the broker's internal topics (consumer offsets, transaction state) are listed apart, since
     * a broker of any dispatcher writes them.
     */
    static String recordsPerActivity(Map<String, Long> before, Map<String, Long> after, long activities) {
        Map<String, Double> baton = perActivity(before, after, activities, false);
        Map<String, Double> internal = perActivity(before, after, activities, true);
        double total = baton.values().stream().mapToDouble(Double::doubleValue).sum();
        return String.format("%.1f per activity in Baton's topics and changelogs: %s; besides, in the broker's internal topics: %s",
                total, describe(baton), internal.isEmpty() ? "none" : describe(internal));
    }

    /** Records per activity in Baton's topics and changelogs, by short name, as {@link #recordsPerActivity} counts them. */
    static Map<String, Double> batonRecordsPerActivity(Map<String, Long> before, Map<String, Long> after, long activities) {
        return perActivity(before, after, activities, false);
    }

    private static Map<String, Double> perActivity(Map<String, Long> before, Map<String, Long> after, long activities, boolean internal) {
        Map<String, Double> perTopic = new TreeMap<>();
        after.forEach((topic, end) -> {
            double per = (double) (end - before.getOrDefault(topic, 0L)) / Math.max(1, activities);
            if (per >= 0.05 && topic.startsWith("__") == internal) {
                perTopic.put(shortName(topic), per);
            }
        });
        return perTopic;
    }

    private static String describe(Map<String, Double> perTopic) {
        return perTopic.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> String.format("%s %.1f", e.getKey(), e.getValue())).collect(Collectors.joining(", "));
    }

    /** Changelog topics are named after the app id; the store's name is what says what they hold. */
    private static String shortName(String topic) {
        int i = topic.indexOf("-changelog");
        if (i < 0) {
            return topic;
        }
        String store = topic.substring(0, i);
        return store.substring(store.lastIndexOf('-', store.length() - 1) + 1) + " changelog";
    }
}
