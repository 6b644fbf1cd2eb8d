package dev.baton.cli.scale;

import java.io.PrintStream;
import java.time.Duration;

/**
 * What every phase of the scale soak shares: where it prints, the partitions of Baton's topics, the
 * streams app's {@code -Xmx}, and how long a phase waits for its answers before it gives up.
 */
public record PhaseSettings(PrintStream out, int partitions, String streamsHeap, Duration patience) {

    public PhaseSettings {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (patience.isNegative() || patience.isZero()) {
            throw new IllegalArgumentException("patience must be > 0, was " + patience);
        }
    }
}
