package dev.baton.streams.config;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the streams app's defaults are tuned for. Every activity waits for two of a stream thread's
 * commits, so a short interval buys latency; each commit also stops the thread for a flush and two
 * transaction round trips, so a long interval (and a second thread to commit while the other
 * processes) buys throughput. Commits paced by the returns ({@link CommitPacing#RETURNS}) are an
 * opt-in of either. A key the operator sets explicitly wins over its profile.
 */
public enum Profile {
    /** The default: commits every 10 ms on one stream thread. */
    LATENCY(10, 1, CommitPacing.INTERVAL),
    /** Bulk work: commits every 100 ms on two stream threads. Measured figures are in the {@code profile} key's description. */
    THROUGHPUT(100, 2, CommitPacing.INTERVAL),
    /**
     * One setting for any load: a stream thread that commits as soon as its input is drained
     * ({@link CommitPacing#DRAINED}), no more often than every 10 ms and at the latest every 100 ms.
     */
    ADAPTIVE(100, 1, CommitPacing.DRAINED);

    private final long commitIntervalMs;
    private final int streamThreads;
    private final CommitPacing commitPacing;

    Profile(long commitIntervalMs, int streamThreads, CommitPacing commitPacing) {
        this.commitIntervalMs = commitIntervalMs;
        this.streamThreads = streamThreads;
        this.commitPacing = commitPacing;
    }

    public CommitPacing commitPacing() {
        return commitPacing;
    }

    public long commitIntervalMs() {
        return commitIntervalMs;
    }

    public int streamThreads() {
        return streamThreads;
    }

    /** The name used in configuration: {@code latency}, {@code throughput} or {@code adaptive}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Profile fromConfig(String name) {
        for (Profile p : values()) {
            if (p.configName().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown profile '" + name + "'; use one of " + String.join(", ", configNames()));
    }

    static String[] configNames() {
        return Arrays.stream(values()).map(Profile::configName).toArray(String[]::new);
    }
}
