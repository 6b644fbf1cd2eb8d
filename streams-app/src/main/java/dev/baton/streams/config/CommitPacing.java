package dev.baton.streams.config;

import java.util.Arrays;
import java.util.Locale;

/** How a stream thread times its commits. */
public enum CommitPacing {
    /** Kafka Streams' own timer: {@code commit.interval.ms} after the last commit ended. */
    INTERVAL,
    /**
     * The default. As soon as the stream thread has processed everything its last poll returned and
     * that poll was not full (its input is drained), at least 10 ms after its last commit ended, and
     * otherwise Kafka Streams' timer, {@code commit.interval.ms} after the last commit: small commits at
     * once under light load, large ones at the interval under heavy load.
     */
    DRAINED;

    /** The name used in configuration: {@code interval} or {@code drained}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static CommitPacing fromConfig(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    static String[] configNames() {
        return Arrays.stream(values()).map(CommitPacing::configName).toArray(String[]::new);
    }
}
