package dev.baton.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import dev.baton.morsel.kafka.ScanTimings;

/**
 * Prints a {@link ScanTimings} breakdown anchored at the process's start: how long the JVM took to
 * reach the command, then each phase's start and length, then what the JVM itself spent (JIT
 * compiler threads, GC, classes loaded). For a short-lived command those fixed costs are most of
 * the wall time, which is why they are shown beside the scans.
 */
final class PhaseReport {

    private PhaseReport() {
    }

    static void print(ScanTimings timings, String cpuBeforeClose, PrintStream out) {
        long nowNanos = System.nanoTime();
        long sinceStartMillis = millisSinceProcessStart();
        long originMillis = sinceStartMillis - (nowNanos - timings.originNanos()) / 1_000_000;
        out.printf("timings   process start -> command: %d ms (JVM start, class loading, option parsing)%n", originMillis);
        for (ScanTimings.Phase p : timings.phases()) {
            out.printf("timings   %-44s at %6d ms  took %6d ms%n", p.name(), originMillis + p.startNanos() / 1_000_000, p.nanos() / 1_000_000);
        }
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        var jit = ManagementFactory.getCompilationMXBean();
        out.printf("timings   JVM: JIT compiling %d ms (compiler threads), GC %d ms, %d classes loaded; %d ms from process start to here%n",
                jit == null ? -1 : jit.getTotalCompilationTime(), gcMillis, ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount(),
                sinceStartMillis);
        out.printf("timings   CPU by thread before close (threads that ended are not counted): %s%n", cpuBeforeClose);
    }

    /**
     * Milliseconds since this process started, from the OS: before the JVM's own clock starts (the
     * launcher, a wrapper script that exec'd java). On Linux both ends are read relative to the boot
     * ({@code /proc/self/stat}'s start in clock ticks, {@code /proc/uptime}), 10 ms resolution;
     * {@link ProcessHandle.Info#startInstant()} adds the boot time, which the kernel gives in whole
     * seconds, so it was off by up to a second. Elsewhere that is the fallback; -1 if neither is known.
     */
    static long millisSinceProcessStart() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(f[19]); // field 22, starttime, in USER_HZ (100 per second on Linux)
            double uptimeSeconds = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return Math.round(uptimeSeconds * 1000) - startTicks * 10;
        } catch (IOException | RuntimeException notLinux) {
            Instant now = Instant.now();
            return ProcessHandle.current().info().startInstant().map(s -> Duration.between(s, now).toMillis()).orElse(-1L);
        }
    }

    /**
     * CPU time (user + system) of this process's live threads, summed by kind of thread, from
     * {@code /proc/self/task}: the JIT compiler and GC threads are not visible to Java's thread
     * beans, and on a loaded machine CPU time says more than wall time. Threads that already ended
     * are not counted. "n/a" where there is no {@code /proc}.
     */
    static String cpuByThreadKind() {
        Map<String, Long> ticks = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    // comm is in parentheses and may hold spaces; the fields after it are space-separated
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.merge(kindOf(name), Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException ended) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            return "n/a";
        }
        StringBuilder b = new StringBuilder();
        long total = 0;
        for (Map.Entry<String, Long> e : ticks.entrySet()) {
            total += e.getValue();
            b.append(e.getKey()).append(' ').append(e.getValue() * 10).append(" ms, ");
        }
        return b.append("total ").append(total * 10).append(" ms").toString();
    }

    private static String kindOf(String thread) {
        if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) {
            return thread.substring(0, 2) + " JIT";
        }
        if (thread.startsWith("GC ") || thread.startsWith("G1 ") || thread.startsWith("VM Thread")) {
            return "GC+VM";
        }
        if (thread.startsWith("kafka-")) {
            return "kafka clients";
        }
        if (thread.startsWith("baton-morsel") || thread.startsWith("ForkJoinPool")) {
            return "scan workers";
        }
        if (thread.equals("java") || thread.equals("main")) {
            return "main";
        }
        return "other";
    }
}
