package dev.baton.cli;

import org.apache.kafka.streams.KafkaStreams;

/**
 * The stream threads' commits and CPU over one stretch of a run. Every activity waits for two of the
 * streams app's commits, so how often they commit during a fixed-rate run sets much of its latency;
 * the streams metrics' own rates are averaged over a window that also covers the quiet time after
 * the run, so the bench takes the difference of the totals instead.
 */
final class StreamThreadsUse {

    /** Totals at one moment. */
    record Mark(double commits, long cpuNanos, long wallNanos) {
    }

    private final KafkaStreams streams;

    StreamThreadsUse(KafkaStreams streams) {
        this.streams = streams;
    }

    Mark mark() {
        double commits = 0;
        for (var e : streams.metrics().entrySet()) {
            if (e.getKey().group().equals("stream-thread-metrics") && e.getKey().name().equals("commit-total")
                    && e.getValue().metricValue() instanceof Double d) {
                commits += d;
            }
        }
        return new Mark(commits, streamThreadsCpuNanos(), System.nanoTime());
    }

    /** "120 commits/s (one per 8.3 ms), stream threads on a CPU 21% of the time". */
    static String between(Mark from, Mark to) {
        double seconds = Math.max(1e-9, (to.wallNanos() - from.wallNanos()) / 1e9);
        double perSecond = (to.commits() - from.commits()) / seconds;
        String every = perSecond > 0 ? String.format(" (one per %.1f ms)", 1000 / perSecond) : "";
        return String.format("%.0f commits/s%s, stream threads on a CPU %.0f%% of the time", perSecond, every,
                100.0 * (to.cpuNanos() - from.cpuNanos()) / 1e9 / seconds);
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
