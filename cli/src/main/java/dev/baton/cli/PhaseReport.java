package dev.baton.cli;

import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;

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

    static void print(ScanTimings timings, PrintStream out) {
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        // The process's start from the OS (10 ms resolution on Linux): before the JVM's own clock starts.
        long sinceStartMillis = ProcessHandle.current().info().startInstant().map(s -> Duration.between(s, now).toMillis()).orElse(-1L);
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
    }
}
