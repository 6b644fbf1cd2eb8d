package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class RecordsPerActivityTest {

    @Test
    void shouldCountOnlyWhatTheRunWroteLargestFirstWithTheBrokersTopicsApart() {
        Map<String, Long> before = Map.of("baton.history", 500L, "baton-streams-sites-changelog", 100L, "__consumer_offsets", 0L);
        Map<String, Long> after = Map.of("baton.history", 800L, "baton-streams-sites-changelog", 300L, "baton.dispatch", 100L,
                "__consumer_offsets", 50L, "__transaction_state", 0L);

        String line = DispatchBench.recordsPerActivity(before, after, 100);

        assertThat(line).isEqualTo("6.0 per activity in Baton's topics and changelogs: baton.history 3.0, sites changelog 2.0, "
                + "baton.dispatch 1.0; besides, in the broker's internal topics: __consumer_offsets 0.5");
    }

    @Test
    void shouldSayNoneWhenTheBrokerWroteNothingOfItsOwn() {
        String line = DispatchBench.recordsPerActivity(Map.of(), Map.of("baton.dispatch", 10L), 10);

        assertThat(line).endsWith("baton.dispatch 1.0; besides, in the broker's internal topics: none");
    }
}
