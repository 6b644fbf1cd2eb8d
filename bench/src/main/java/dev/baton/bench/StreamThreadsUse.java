package dev.baton.bench;

import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.streams.KafkaStreams;

/**
 * The stream threads' commits and CPU over one stretch of a run. Every activity waits for two of the
 * streams app's commits, so how often they commit during a fixed-rate run, and how long each commit
 * blocks its thread, set much of its latency. The streams metrics' own rates are averaged over a
 * window that also covers the quiet time after the run, so the bench takes the difference of the
 * totals instead.
 */
final class StreamThreadsUse {

    /**
     * Totals at one moment. The three waits are the stream threads' producers' time blocked in a
     * commit's three broker round trips: sending what the transaction holds, its consumed offsets,
     * and ending it.
     */
    record Mark(int threads, double commits, double flushNanos, double offsetsNanos, double endNanos, long cpuNanos, long wallNanos) {
    }

    private final KafkaStreams streams;

    StreamThreadsUse(KafkaStreams streams) {
        this.streams = streams;
    }

    Mark mark() {
        Map<String, Double> thread = sums(streams, "stream-thread-metrics");
        Map<String, Double> producer = sums(streams, "producer-metrics");
        return new Mark(streams.metadataForLocalThreads().size(), thread.getOrDefault("commit-total", 0.0),
                producer.getOrDefault("flush-time-ns-total", 0.0), producer.getOrDefault("txn-send-offsets-time-ns-total", 0.0),
                producer.getOrDefault("txn-commit-time-ns-total", 0.0),
                streamThreadsCpuNanos(), System.nanoTime());
    }

    /**
     * "62 commits/s (one per 16.0 ms), each waiting 2.5 ms to flush, 1.6 ms for offsets, 0.7 ms to end;
     * stream threads on a CPU 28% of the time". Each thread commits on its own, so with several the
     * cycle is a thread's: "(one per 111.0 ms in each of 2 threads)".
     */
    static String between(Mark from, Mark to) {
        double seconds = Math.max(1e-9, (to.wallNanos() - from.wallNanos()) / 1e9);
        double commits = to.commits() - from.commits();
        int threads = Math.max(1, to.threads());
        String each = threads == 1 ? "" : " in each of " + threads + " threads";
        String cycle = commits <= 0 ? "0 commits/s,"
                : String.format("%.0f commits/s (one per %.1f ms%s), each waiting %.1f ms to flush, %.1f ms for offsets, %.1f ms to end;",
                        commits / seconds, 1000 * seconds * threads / commits, each, perCommitMillis(from.flushNanos(), to.flushNanos(), commits),
                        perCommitMillis(from.offsetsNanos(), to.offsetsNanos(), commits), perCommitMillis(from.endNanos(), to.endNanos(), commits));
        return String.format("%s stream threads on a CPU %.0f%% of the time", cycle,
                100.0 * (to.cpuNanos() - from.cpuNanos()) / 1e9 / seconds);
    }

    private static double perCommitMillis(double fromNanos, double toNanos, double commits) {
        return (toNanos - fromNanos) / 1e6 / commits;
    }

    /**
     * Each metric of {@code group}, summed over the instance's threads (for producer metrics: over the
     * stream threads' producers, the only producers an instance's metrics hold).
     */
    static Map<String, Double> sums(KafkaStreams streams, String group) {
        Map<String, Double> sums = new TreeMap<>();
        streams.metrics().forEach((name, metric) -> {
            if (name.group().equals(group) && metric.metricValue() instanceof Double d) {
                sums.merge(name.name(), d, Double::sum);
            }
        });
        return sums;
    }

    /** Threads named {@code baton-streams-<id>-StreamThread-<n>}; their producers' and consumers' threads are named otherwise. */
    private static long streamThreadsCpuNanos() {
        long[] nanos = {0};
        CpuByRole.forEachLiveThread((name, n) -> {
            if (name.startsWith("baton-streams-") && name.contains("-StreamThread-")) {
                nanos[0] += n;
            }
        });
        return nanos[0];
    }
}
