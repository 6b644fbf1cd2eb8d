package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class LatenciesTest {

    @Test
    void shouldSummariseTimesLeavingOutThoseNeverMeasured() {
        assertThat(Latencies.summary(List.of(30L, 10L, -1L, 20L))).isEqualTo("n 3, p50 20 ms, p99 30 ms, max 30 ms");
        assertThat(Latencies.summary(List.of(-1L))).isEqualTo("n 0");
    }

    @Test
    void shouldSummariseWhatWasAdded() {
        Latencies l = new Latencies();
        for (long ms = 1; ms <= 200; ms++) {
            l.add(ms);
        }

        assertThat(l).hasToString("n 200, p50 100 ms, p99 198 ms, max 200 ms");
    }
}
