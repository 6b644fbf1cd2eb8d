package dev.baton.bench.replay;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.baton.bench.warmup.JitWarmUp;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code baton bench replay}: on one synthetic {@code baton.history} of N records on the embedded
 * broker (written once, kept in {@code --data-dir} and reused), times the raw consumer that polls and
 * drops (the limit), the scan's own reader counting records (the floor under every history query: no decode),
 * replay's scan and {@code history stats}, each cold (the first run in a fresh
 * JVM, from its {@code main}; the median of {@code --cold-runs} such JVMs, kinds alternating) and warm (median of runs after warm-ups in this JVM; the raw consumer's consumers reused, each
 * history query on a fresh log and dictionary made before its clock, as a user's command has), at each
 * thread count; prints records/s per core, MB/s of keys and values, and the ratio to the raw
 * consumer at the same temperature and thread count. Last, the whole replay (history, results and
 * changelog) in a fresh JVM, timed from process start.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, description = "Replay's scan and history stats vs a raw consumer, cold and warm.")
public final class ReplayBench implements Callable<Integer> {

    @Option(names = "--records", defaultValue = "10000000", description = "History records (default ${DEFAULT-VALUE})")
    long records;

    @Spec
    CommandSpec spec;

    @Option(names = "--activities-per-second", defaultValue = "10000", description = "The rate the history is written as if run at: sites'"
            + " events interleave as on a platform at that rate; 0 writes each activity's events back to back (default ${DEFAULT-VALUE})")
    int activitiesPerSecond;

    @Option(names = "--threads", defaultValue = "1,2", split = ",", description = "Thread counts (default ${DEFAULT-VALUE})")
    int[] threads;

    @Option(names = "--runs", defaultValue = "3", description = "Warm runs per kind, median reported (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--cold-runs", defaultValue = "3", description = "Fresh-JVM runs per kind and thread count, kinds alternating, median"
            + " reported (default ${DEFAULT-VALUE})")
    int coldRuns;

    @Option(names = "--warmups", defaultValue = "2", description = "Fewest unmeasured warm rounds (each kind once) first; more until the JIT"
            + " compiler is quiet (default ${DEFAULT-VALUE})")
    int warmups;

    @Option(names = "--warm-up-seconds", defaultValue = "120", description = "Most time spent warming up at each thread count while the JIT"
            + " compiler is still busy (default ${DEFAULT-VALUE})")
    double warmUpSeconds;

    @Option(names = "--data-dir", defaultValue = ".baton/bench-replay", description = "The broker's data, kept between runs (default ${DEFAULT-VALUE})")
    Path dataDir;

    @Option(names = "--child-heap", description = "-Xmx of the cold runs' JVMs (default: none, so the heap is what --command-java-opts gives, as for the command)")
    String childHeap;

    @Option(names = "--command-only", description = "Skip the scan table: write or reuse the history, then time the whole command only")
    boolean commandOnly;

    @Option(names = "--command-runs", defaultValue = "1", description = "Fresh-JVM runs of the whole command (default ${DEFAULT-VALUE})")
    int commandRuns;

    @Option(names = "--hold-file", description = "At the end, keep the broker up while this file exists (to time `baton replay` by hand against it)")
    Path holdFile;

    /** What {@code ./baton} gives replay, but for the class archive and the compiler ({@link #javaOpts}). */
    static final String SCAN_JAVA_OPTS = "-XX:MaxRAMPercentage=50 -XX:InitialRAMPercentage=12 -XX:MetaspaceSize=128m -XX:+UseParallelGC";

    @Option(names = "--command-java-opts", description = "JVM options of the cold runs and the command runs (cold runs add -Xmx if --child-heap is given);"
            + " by default what ./baton gives replay but for the class archive: " + SCAN_JAVA_OPTS + ", plus -XX:TieredStopAtLevel=1 at a thread"
            + " count that takes every core")
    String commandJavaOpts;

    /** The CLI's entry point; the bench module does not depend on the CLI, which carries the bench. */
    private static final String CLI = "dev.baton.cli.BatonCommand";

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if (activitiesPerSecond < 0) {
            throw new ParameterException(spec.commandLine(), "--activities-per-second must be 0 or more, not " + activitiesPerSecond);
        }
        if (coldRuns < 1 || runs < 1) {
            throw new ParameterException(spec.commandLine(), "--cold-runs and --runs must be 1 or more, not " + coldRuns + " and " + runs);
        }
        Files.createDirectories(dataDir);
        // The testkit's cluster (broker and streams app) on a kept data dir: replay reads the streams app's changelog as in production.
        try (LocalCluster broker = LocalCluster.start(BatonTopics.DEFAULT_PARTITIONS, List.of("demo"), Map.of(), dataDir)) {
            Map<String, Object> config = ClientConfigs.bootstrap(broker.bootstrapServers());
            SyntheticHistory.Written w;
            try {
                w = SyntheticHistory.ensure(config, records, activitiesPerSecond, dataDir);
            } catch (SyntheticHistory.KeptHistoryMismatch e) {
                System.err.println("bench replay: " + e.getMessage());
                return 2;
            }
            out.printf("history   %,d records, %,d results, %s (%s in %.1f s), data in %s%n", w.history(), w.results(), w.layout(),
                    w.reused() ? "reused" : "written", w.nanos() / 1e9, dataDir.toAbsolutePath());
            out.printf("machine   %d cores, L2 %d KiB (half per morsel), load %s%n", Runtime.getRuntime().availableProcessors(),
                    Morsels.l2Bytes() / 1024, loadAverage());
            if (!commandOnly) {
                scanTable(config, broker.bootstrapServers());
            }
            int t = threads[threads.length - 1];
            for (int i = 0; i < commandRuns; i++) {
                commandRun(t, broker.bootstrapServers());
            }
            out.printf("load      %s at the end%n", loadAverage());
            if (holdFile != null) {
                out.printf("holding   the broker at %s while %s exists%n", broker.bootstrapServers(), holdFile);
                out.flush();
                while (Files.exists(holdFile)) {
                    Thread.sleep(1000); // NOPMD: a person is timing commands against this broker; nothing to await
                }
            }
            return 0;
        }
    }

    /** Every scan kind cold (a fresh JVM each) and warm, at each thread count, as a table. */
    private void scanTable(Map<String, Object> config, String bootstrap) throws Exception {
        Map<ScanKind, Map<Integer, ScanProbe.Run>> cold = new EnumMap<>(ScanKind.class);
        Map<ScanKind, Map<Integer, ScanProbe.Run>> warm = new EnumMap<>(ScanKind.class);
        out.printf("cold      runs in fresh JVMs with %s%s, median of %d%n", childHeap == null ? "" : "-Xmx" + childHeap + " ",
                commandJavaOpts != null ? commandJavaOpts : SCAN_JAVA_OPTS + " (C1 alone where the threads take every core, as ./baton)", coldRuns);
        out.printf("warm      runs in this JVM (%s); each history query on a fresh log (consumers, dictionary, tables) made before its clock,"
                + " and a collection before every run's clock%n", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        for (int t : threads) {
            // One fresh JVM is one sample of a host whose speed drifts run to run: kinds alternate, the median is reported.
            Map<ScanKind, List<ScanProbe.Run>> runsByKind = new EnumMap<>(ScanKind.class);
            for (int i = 0; i < coldRuns; i++) {
                for (ScanKind kind : ScanKind.values()) {
                    ColdRun c = coldRun(kind.name(), t, bootstrap);
                    runsByKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(c.run());
                    out.printf("cold      %-14s %d threads: %.2f s in main (%.2f s of it making consumers and threads), %.2f s process wall%n",
                            kind.label, t, c.run().nanos() / 1e9, c.setUpNanos() / 1e9, c.wallNanos() / 1e9);
                }
            }
            runsByKind.forEach((kind, list) -> cold.computeIfAbsent(kind, k -> new java.util.TreeMap<>()).put(t, median(list)));
        }
        for (int t : threads) {
            Map<ScanKind, ScanProbe.Run> medians = warm(config, t);
            medians.forEach((kind, run) -> warm.computeIfAbsent(kind, k -> new java.util.TreeMap<>()).put(t, run));
        }
        print(cold, warm);
    }

    private Map<ScanKind, ScanProbe.Run> warm(Map<String, Object> config, int t) throws Exception {
        Map<ScanKind, ScanProbe> probes = new EnumMap<>(ScanKind.class);
        Map<ScanKind, List<ScanProbe.Run>> runsByKind = new EnumMap<>(ScanKind.class);
        try {
            for (ScanKind kind : ScanKind.values()) {
                probes.put(kind, new ScanProbe(kind, config, t));
                runsByKind.put(kind, new ArrayList<>());
            }
            // Warm means compiled: rounds until the compiler is quiet, as bench morsel warms up. Two fixed rounds left C2
            // compiling into the measured runs at one thread, whose median then sat ~25% above later runs'
            // (docs/decisions.md, "bench replay warms up until the JIT is quiet").
            JitWarmUp.Report warmUp = JitWarmUp.run(() -> {
                for (ScanKind kind : ScanKind.values()) {
                    probes.get(kind).runUnmeasured();
                }
            }, warmups, warmUpSeconds);
            out.printf("warm-up   %d threads: %s%n", t, warmUp);
            // Kinds alternate run by run, so drift on this shared machine hits all alike.
            for (int i = 0; i < runs; i++) {
                for (ScanKind kind : ScanKind.values()) {
                    runsByKind.get(kind).add(probes.get(kind).run());
                }
            }
        } finally {
            probes.values().forEach(ScanProbe::close);
        }
        Map<ScanKind, ScanProbe.Run> medians = new EnumMap<>(ScanKind.class);
        runsByKind.forEach((kind, list) -> medians.put(kind, median(list)));
        return medians;
    }

    private static ScanProbe.Run median(List<ScanProbe.Run> runs) {
        ScanProbe.Run[] sorted = runs.toArray(ScanProbe.Run[]::new);
        Arrays.sort(sorted, (a, b) -> Long.compare(a.nanos(), b.nanos()));
        return sorted[sorted.length / 2];
    }

    private void print(Map<ScanKind, Map<Integer, ScanProbe.Run>> cold, Map<ScanKind, Map<Integer, ScanProbe.Run>> warm) {
        out.printf("%n%-14s %7s %5s %14s %16s %9s %12s %10s%n", "scan", "threads", "temp", "records/s", "records/s/core", "MB/s", "time s",
                "vs raw");
        for (ScanKind kind : ScanKind.values()) {
            for (int t : threads) {
                for (boolean isCold : new boolean[] {true, false}) {
                    ScanProbe.Run r = (isCold ? cold : warm).get(kind).get(t);
                    ScanProbe.Run rawRun = (isCold ? cold : warm).get(ScanKind.RAW).get(t);
                    out.printf("%-14s %7d %5s %,14.0f %,16.0f %9.1f %12.2f %10.2f%n", kind.label, t, isCold ? "cold" : "warm", r.recordsPerSecond(),
                            r.recordsPerSecond() / t, r.megabytesPerSecond(), r.nanos() / 1e9, r.recordsPerSecond() / rawRun.recordsPerSecond());
                }
                out.printf("%-14s %7d cold/warm time: %.2fx%n", "", t, cold.get(kind).get(t).nanos() / (double) warm.get(kind).get(t).nanos());
            }
        }
        out.println("(scan reader: the history queries' reader, morsels and fold counting records by partition, nothing decoded;"
                + " scan decode: the replay scan's reader and decode, every row then filtered out, nothing aggregated;"
                + " stats: records/s over history records, it also reads baton.results)");
    }

    /**
     * The JVM options of a fresh scan JVM at {@code threads} threads: {@code --command-java-opts} when given, else
     * {@code ./baton}'s rule: C1 alone when the scan's threads take every core, tiered compilation (C2 on the core the
     * scan leaves) when they do not.
     */
    List<String> javaOpts(int threads) {
        if (commandJavaOpts != null) {
            return List.of(commandJavaOpts.trim().split("\\s+"));
        }
        List<String> opts = new ArrayList<>(List.of(SCAN_JAVA_OPTS.split(" ")));
        if (threads >= Runtime.getRuntime().availableProcessors()) {
            opts.add("-XX:TieredStopAtLevel=1");
        }
        return opts;
    }

    /** A run in a fresh JVM, the process's wall time from start to exit, and the part of the run spent making consumers and threads. */
    record ColdRun(ScanProbe.Run run, long wallNanos, long setUpNanos) {
    }

    private ColdRun coldRun(String kind, int t, String bootstrap) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The cold runs start as the command runs do (./baton's scan flags): a cold scan is what a user's fresh `baton replay` pays.
        // No -Xmx of the bench's own: a 3 GB cap once made a 10M cold scan (1.2-1.6 GB live) collect in full every few seconds.
        List<String> command = new ArrayList<>(List.of(java));
        if (childHeap != null) {
            command.add("-Xmx" + childHeap);
        }
        command.addAll(javaOpts(t));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ScanProbe.class.getName(), kind, Integer.toString(t), bootstrap));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("the cold " + kind + " run at " + t + " threads failed:\n" + output);
        }
        long wall = System.nanoTime() - start;
        for (String line : output.split("\n")) {
            if (line.startsWith(ScanProbe.LINE + " ")) {
                String[] f = line.trim().split(" ");
                long setUp = f.length > 4 && f[4].matches("\\d+") ? Long.parseLong(f[4]) : 0;
                return new ColdRun(new ScanProbe.Run(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])), wall, setUp);
            }
        }
        throw new IllegalStateException("the cold " + kind + " run printed no '" + ScanProbe.LINE + "' line:\n" + output);
    }

    /**
     * {@code baton replay --timings} in a fresh JVM started as {@code ./baton} starts it (its
     * {@code BATON_JAVA_OPTS} or -Xmx2g): prints the wall time from process start to exit and the
     * command's own breakdown. Where the CLI is not on the class path, {@link ScanProbe}'s
     * {@code COMMAND} runs the same analysis.
     */
    private void commandRun(int t, String bootstrap) throws IOException, InterruptedException {
        String load = loadAverage();
        if (!cliPresent()) {
            ColdRun command = coldRun("COMMAND", t, bootstrap);
            out.printf("%nreplay    whole (history, results, changelog) in a fresh JVM at %d threads: %.2f s wall from process start, %.2f s from main"
                    + " (load before %s)%n", t, command.wallNanos() / 1e9, command.run().nanos() / 1e9, load);
            return;
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(javaOpts(t));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CLI, "replay", "--bootstrap-servers", bootstrap,
                "--threads", Integer.toString(t), "--timings"));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("baton replay at " + t + " threads failed:\n" + output);
        }
        long wall = System.nanoTime() - start;
        out.printf("%nreplay    baton replay (history, results, changelog) in a fresh JVM (%s) at %d threads: %.2f s wall from process start;"
                + " load before %s%n", String.join(" ", javaOpts(t)), t, wall / 1e9, load);
        for (String line : output.split("\n")) {
            if (line.startsWith("timings ") || line.startsWith("scan ") || line.startsWith("sites ")) {
                out.println("          " + line);
            }
        }
    }

    private static boolean cliPresent() {
        try {
            Class.forName(CLI, false, ReplayBench.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "n/a";
        }
    }
}
