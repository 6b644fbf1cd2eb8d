package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamThreadsUseTest {

    @Test
    void reportsTheCommitCycleAndWhatEachCommitWaitedFor() {
        StreamThreadsUse.Mark from = new StreamThreadsUse.Mark(1, 100, 1e9, 2e9, 3e9, 5_000_000_000L, 0);
        // 2 s later: 120 more commits, which waited 300, 180 and 60 ms in all; 0.5 s of stream-thread CPU.
        StreamThreadsUse.Mark to = new StreamThreadsUse.Mark(1, 220, 1.3e9, 2.18e9, 3.06e9, 5_500_000_000L, 2_000_000_000L);

        assertThat(StreamThreadsUse.between(from, to)).isEqualTo(
                "60 commits/s (one per 16.7 ms), each waiting 2.5 ms to flush, 1.5 ms for offsets, 0.5 ms to end; "
                        + "stream threads on a CPU 25% of the time");
    }

    @Test
    void givesOneThreadsCycleWhenSeveralCommitApart() {
        StreamThreadsUse.Mark from = new StreamThreadsUse.Mark(2, 0, 0, 0, 0, 0, 0);
        // 1 s: 18 commits across two threads, 9 each, one every 111.1 ms.
        StreamThreadsUse.Mark to = new StreamThreadsUse.Mark(2, 18, 18 * 4e6, 18 * 2e6, 18 * 1e6, 290_000_000L, 1_000_000_000L);

        assertThat(StreamThreadsUse.between(from, to)).isEqualTo(
                "18 commits/s (one per 111.1 ms in each of 2 threads), each waiting 4.0 ms to flush, 2.0 ms for offsets, 1.0 ms to end; "
                        + "stream threads on a CPU 29% of the time");
    }

    @Test
    void saysSoWhenNothingWasCommitted() {
        StreamThreadsUse.Mark from = new StreamThreadsUse.Mark(1, 7, 0, 0, 0, 0, 0);
        StreamThreadsUse.Mark to = new StreamThreadsUse.Mark(1, 7, 0, 0, 0, 100_000_000L, 1_000_000_000L);

        assertThat(StreamThreadsUse.between(from, to)).isEqualTo("0 commits/s, stream threads on a CPU 10% of the time");
    }
}
