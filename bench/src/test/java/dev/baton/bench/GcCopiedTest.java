package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.MemoryUsage;
import java.util.Map;

import org.junit.jupiter.api.Test;

class GcCopiedTest {

    @Test
    void shouldCountTheSurvivorsAfterACollectionAndWhatTheOldGenerationGrewBy() {
        Map<String, MemoryUsage> before = Map.of("G1 Eden Space", used(500), "G1 Survivor Space", used(30), "G1 Old Gen", used(100));
        Map<String, MemoryUsage> after = Map.of("G1 Eden Space", used(0), "G1 Survivor Space", used(40), "G1 Old Gen", used(115));

        assertThat(GcCopied.kept(before, after)).isEqualTo(55);
    }

    @Test
    void shouldCountAnOldGenerationThatShrankAsNoGrowth() {
        Map<String, MemoryUsage> before = Map.of("G1 Survivor Space", used(30), "G1 Old Gen", used(100));
        Map<String, MemoryUsage> after = Map.of("G1 Survivor Space", used(20), "G1 Old Gen", used(90));

        assertThat(GcCopied.kept(before, after)).isEqualTo(20);
    }

    private static MemoryUsage used(long bytes) {
        return new MemoryUsage(0, bytes, Math.max(bytes, 1), -1);
    }
}
