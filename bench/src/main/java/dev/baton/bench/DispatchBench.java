package dev.baton.bench;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.baton.streams.config.Profile;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.testkit.LocalCluster;
import dev.baton.testkit.TempDirs;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.WorkerOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton bench dispatch}: in one process on the embedded broker, (a) a raw-Kafka three-hop echo
 * (dispatch → tasks → completions with plain consumer/producer stages, the same partitions and
 * record size: the floor of any Kafka-based dispatcher here) and (b) Baton end to end with no-op
 * activities. For each it measures max sustained throughput and latency at fixed rates from the
 * intended send time (no coordinated omission), prints both and the ratios, the records Baton
 * writes per activity, and the CPU other processes used during the run.
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

    @Option(names = "--stream-threads", description = "Stream threads of the Baton side (default: the profile's)")
    Integer streamThreads;

    @Option(names = "--data-dir", description = "Where the broker's logs and the streams app's state live during the run (default: "
            + "/dev/shm when it is a tmpfs with 8 GiB free, else the temp dir); a directory is made in it and deleted after")
    Path dataDir;

    @Option(names = "--profile", defaultValue = "latency",
            description = "Streams-app profile of the Baton side, ${COMPLETION-CANDIDATES}: the defaults of the two options above (default ${DEFAULT-VALUE})")
    Profile profile;

    private static final String RAW = "raw three-hop";
    private static final String BATON = "baton";
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

    @Override
    public Integer call() throws Exception {
        Map<String, Object> settings = streamsSettings();
        StreamsAppConfig streams = new StreamsAppConfig(settings); // a bad --streams-config fails here, not after the raw echo
        Path runDir = Files.createTempDirectory(BenchStorage.parent(dataDir), "baton-bench-");
        settings.put("state.dir", runDir.resolve("streams-state").toString());
        try {
            return run(streams, settings, runDir);
        } finally {
            TempDirs.deleteQuietly(runDir);
        }
    }

    private int run(StreamsAppConfig streams, Map<String, Object> settings, Path runDir) throws Exception {
        out.printf("storage     broker logs and streams state in %s (%s)%n", runDir, BenchStorage.type(runDir));
        MachineReference.Figures machineBefore = MachineReference.measure();
        long cpuStart = OtherCpu.othersJiffies();
        long wallStart = System.nanoTime();
        try (LocalCluster cluster = LocalCluster.start(partitions, List.of("bench"), settings, runDir.resolve("kafka"))) {
            WorkerOptions.Builder worker = WorkerOptions.builder().workerId("bench-worker").queues("bench").maxConcurrent(workerConcurrency)
                    .handler("noop", (ctx, input) -> input)
                    .leaseMode(streams.atLeastOnce() ? LeaseMode.PLAIN : LeaseMode.TRANSACTIONAL); // the worker path each mode is meant for
            cluster.worker(worker);
            long[] raw;
            long[] baton;
            try (RawEcho echo = new RawEcho(cluster.bootstrapServers(), partitions, payloadBytes)) {
                raw = measure(RAW, echo, new ArrayList<>(), null);
            }
            long before = totalRecords(cluster.bootstrapServers());
            List<Map<String, HopBreakdown.Sample>> samples = new ArrayList<>();
            out.printf("%-14s profile %s: processing.guarantee=%s, commit.pacing=%s, commit.interval.ms=%d, num.stream.threads=%d%n", BATON,
                    streams.profile().configName(), streams.atLeastOnce() ? "at_least_once" : "exactly_once_v2",
                    streams.commitPacing().configName(), streams.commitIntervalMs(), streams.streamThreads());
            try (BatonEcho echo = new BatonEcho(cluster, payloadBytes)) {
                baton = measure(BATON, echo, samples, new StreamThreadsUse(cluster.streamsApp().streams()));
            }
            Set<String> sampled = new HashSet<>();
            samples.forEach(s -> sampled.addAll(s.keySet()));
            HopBreakdown hops = HopBreakdown.read(cluster.bootstrapServers(), sampled);
            for (int i = 0; i < rates.length; i++) {
                hops.print(out, String.format("at %5d/s", rates[i]), samples.get(i));
            }
            printStreamsLoop(cluster);
            long written = totalRecords(cluster.bootstrapServers()) - before;
            long activities = baton[0];
            out.printf("%nthroughput  raw %d/s, baton %d/s, baton/raw %.2f%n", raw[1], baton[1], (double) baton[1] / Math.max(1, raw[1]));
            out.printf("records     baton wrote %.1f records per activity (all topics incl. changelogs, schemas and history)%n",
                    (double) written / Math.max(1, activities));
            printCpu();
        }
        double wall = (System.nanoTime() - wallStart) / 1e9;
        // System-wide and per-process tick counts are sampled apart, so "nothing" can read as -1%.
        out.printf("noise       other processes used %.1f%% of one core during the run (+-1%%)%n",
                Math.max(0.0, 100.0 * (OtherCpu.othersJiffies() - cpuStart) / OtherCpu.HZ / wall));
        out.printf("machine     reference work before the run: %s; after: %s (compare runs only at similar figures)%n",
                machineBefore.describe(), MachineReference.measure().describe());
        return 0;
    }

    private Map<String, Object> streamsSettings() {
        Map<String, Object> settings = new HashMap<>(streamsConfig);
        if (commitIntervalMs != null) {
            settings.put("commit.interval.ms", commitIntervalMs);
        }
        if (streamThreads != null) {
            settings.put("num.stream.threads", streamThreads);
        }
        settings.put(StreamsAppConfig.PROFILE_CONFIG, profile.configName());
        return settings;
    }

    /**
     * CPU per activity in the bursts, by role: on a machine the whole pipeline saturates, max throughput
     * is cores divided by this, so it says which part to make cheaper.
     */
    private void printCpu() {
        BurstCpu raw = burstCpu.get(RAW);
        BurstCpu baton = burstCpu.get(BATON);
        out.printf("cpu         in the bursts, per activity (us): raw %d; baton %d = %s%n", raw.microsPerActivity(), baton.microsPerActivity(),
                CpuByRole.perUnit(baton.from(), baton.to(), baton.activities()));
        out.printf("gc          %s; in the bursts: raw %s; baton %s%n", GcTime.collector(), raw.gcTo().since(raw.gcFrom()),
                baton.gcTo().since(baton.gcFrom()));
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
     * Runs the burst and every fixed rate; returns {activities sent, max throughput per second}. Adds
     * to {@code samples} one map per rate: site key → intended send and receipt times. With
     * {@code streamThreads} (Baton's side) each rate also reports the stream threads' commits and CPU.
     */
    private long[] measure(String name, Echo echo, List<Map<String, HopBreakdown.Sample>> samples, StreamThreadsUse streamThreads)
            throws Exception {
        WarmUp warm = warmUp(name, echo);
        long activities = Math.max(burst, (long) (warm.windowPerSecond() * BURST_SECONDS));
        long[] perSecond = new long[BURSTS];
        CpuByRole.Snapshot cpuBefore = CpuByRole.snapshot();
        GcTime gcBefore = GcTime.now();
        for (int b = 0; b < BURSTS; b++) {
            perSecond[b] = burst(echo, b * BURST_ID_SPACING, activities);
        }
        burstCpu.put(name, new BurstCpu(cpuBefore, CpuByRole.snapshot(), activities * BURSTS, gcBefore, GcTime.now()));
        long[] sorted = perSecond.clone();
        Arrays.sort(sorted);
        long throughput = sorted[BURSTS / 2];
        out.printf("%-14s max sustained: %d activities x %d bursts, median %d/s (min %d/s, max %d/s)%n", name, activities, BURSTS,
                throughput, sorted[0], sorted[BURSTS - 1]);
        long sent = activities * BURSTS + warm.activities();
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
            out.printf("%-14s at %5d/s: p50 %7.1f ms  p99 %7.1f ms  p99.9 %7.1f ms  (n=%d, from intended send time)%n", name, rate,
                    h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
                    h.getTotalCount());
            if (streamThreads != null) {
                out.printf("%-14s at %5d/s: %s%n", "streams", rate, StreamThreadsUse.between(before, after));
            }
        }
        return new long[] {sent, throughput};
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
    private record BurstCpu(CpuByRole.Snapshot from, CpuByRole.Snapshot to, long activities, GcTime gcFrom, GcTime gcTo) {
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

    private static long totalRecords(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Set<String> topics = admin.listTopics().names().get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
                if (d.name().startsWith("bench.raw") || d.name().startsWith("__")) {
                    continue;
                }
                d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            return admin.listOffsets(latest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }
}
