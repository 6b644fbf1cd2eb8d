package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Adversary (adv20): a range that does not start at offset 0 (a log after retention), split into one part per partition. */
class Adv20OffsetRangeTest {

    @Test
    void shouldSplitARangeNotStartingAtZeroIntoOneWholePart() {
        assertThat(new OffsetRange("baton.history", 0, 5, 10).split(Long.MAX_VALUE))
                .containsExactly(new OffsetRange("baton.history", 0, 5, 10));
    }

    @Test
    void shouldSplitNearTheLargestOffsetsWithoutOverflow() {
        long max = Long.MAX_VALUE;
        assertThat(new OffsetRange("t", 0, max - 10, max).split(4)).isEqualTo(List.of(new OffsetRange("t", 0, max - 10, max - 6),
                new OffsetRange("t", 0, max - 6, max - 2), new OffsetRange("t", 0, max - 2, max)));
    }
}
