package dev.baton.cli.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

import dev.baton.testkit.soak.ScaleStage;

/**
 * What every phase of the scale soak shares: where it prints, the partitions of Baton's topics, the
 * streams app's {@code -Xmx} and extra {@code key=value} settings, and how long a phase waits for its
 * answers before it gives up.
 */
public record PhaseSettings(PrintStream out, int partitions, String streamsHeap, List<String> streamsConfig, Duration patience) {

    public PhaseSettings {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (patience.isNegative() || patience.isZero()) {
            throw new IllegalArgumentException("patience must be > 0, was " + patience);
        }
        streamsConfig = List.copyOf(streamsConfig);
    }

    /** A fresh stage for a phase: Baton's topics with these queues (each task topic {@code taskPartitions}) and the streams app. */
    ScaleStage stage(List<String> queues, int taskPartitions) {
        return ScaleStage.start(queues, partitions, taskPartitions, streamsHeap, streamsConfig);
    }
}
