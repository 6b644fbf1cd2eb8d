package dev.baton.bench.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * Unmeasured rounds of a query until the JIT compiler is quiet: at least a given number, then on
 * until the compiler spent under a tenth of a core over the last window of a second or more, or the
 * time allowed ran out.
 *
 * <p>Why not a fixed count: on two cores the compiler's threads take the core a second worker
 * needs. After 2-10 rounds C2 was still compiling Q6 and Q14, and the 2-worker runs, which come
 * after the 1-worker ones, had each worker on a CPU half of the pipeline's time: Q6 went 11.3 ->
 * 8.9 ms (1.27x) while its workers' CPU summed to the 1-worker figure. After 40 rounds the same
 * trace gave 9.7 -> 4.8 ms (2.02x), both workers starting within 0.04 ms. Judged over a window, not
 * one round, as {@code bench dispatch} judges its warm-up: a short round often catches a lull.
 */
public final class JitWarmUp {

    static final double QUIET_JIT_SHARE = 0.1;
    static final double WINDOW_SECONDS = 1.0;

    /** What a warm-up did: its rounds and seconds, and the compiler's share of a core over its last window. */
    public record Report(int rounds, double seconds, double jitShare) {
        @Override
        public String toString() {
            return String.format("%d rounds in %.1f s, JIT compiling %.0f%% of one core over the last window", rounds, seconds, 100 * jitShare);
        }
    }

    private JitWarmUp() {
    }

    /** Runs {@code round} at least {@code minRounds} times, then until the compiler is quiet or {@code maxSeconds} ran out. */
    public static Report run(Runnable round, int minRounds, double maxSeconds) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        long deadline = start + (long) (maxSeconds * TimeUnit.SECONDS.toNanos(1));
        int rounds = 0;
        for (; rounds < minRounds; rounds++) {
            round.run();
        }
        double share;
        do {
            long jitBefore = jit.getTotalCompilationTime();
            long windowStart = System.nanoTime();
            double window;
            do {
                round.run();
                rounds++;
                window = (System.nanoTime() - windowStart) / 1e9;
            } while (window < WINDOW_SECONDS && System.nanoTime() < deadline);
            share = (jit.getTotalCompilationTime() - jitBefore) / (window * 1e3);
        } while (share > QUIET_JIT_SHARE && System.nanoTime() < deadline);
        return new Report(rounds, (System.nanoTime() - start) / 1e9, share);
    }
}
