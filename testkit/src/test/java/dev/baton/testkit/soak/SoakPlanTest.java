package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.baton.testkit.soak.SoakPlan.Scenario;
import org.junit.jupiter.api.Test;

class SoakPlanTest {

    @Test
    void shouldGiveEachNewScenarioAFewPercentOfTheStream() {
        Map<Scenario, Integer> counts = new EnumMap<>(Scenario.class);
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            counts.merge(SoakPlan.scenario(i), 1, Integer::sum);
        }

        for (Scenario s : List.of(Scenario.JOINED_ECHO, Scenario.JOINED_FLAKY, Scenario.RESENT, Scenario.TAKEOVER, Scenario.CANCEL,
                Scenario.PINNED_SERVED, Scenario.PINNED_UNSERVED, Scenario.PINNED_UNKNOWN, Scenario.SECOND_QUEUE)) {
            assertThat(counts.get(s)).as(s.name()).isBetween(n / 100, n * 3 / 100);
        }
        assertThat(counts.get(Scenario.ECHO)).as("ordinary echo stays the bulk").isGreaterThan(n * 3 / 4);
    }

    @Test
    void shouldMixMultiQueueLabelledWorkersWithSingleQueueOnes() {
        assertThat(SoakPlan.workerSpec(1).queues()).containsExactly(SoakPlan.QUEUE, SoakPlan.SECOND_QUEUE);
        assertThat(SoakPlan.workerSpec(1).nodeLabels()).containsExactly(SoakPlan.SERVED_NODE);
        assertThat(SoakPlan.workerSpec(2).queues()).containsExactly(SoakPlan.QUEUE);
        assertThat(SoakPlan.workerSpec(2).nodeLabels()).isEmpty();
    }

    @Test
    void shouldDeclareTheServedNodeOnEveryQueueItsWorkersServeAndNeverTheUnknownOne() {
        assertThat(SoakPlan.nodesByQueue().get(SoakPlan.QUEUE)).contains(SoakPlan.SERVED_NODE, SoakPlan.IDLE_NODE);
        assertThat(SoakPlan.nodesByQueue().get(SoakPlan.SECOND_QUEUE)).contains(SoakPlan.SERVED_NODE);
        assertThat(SoakPlan.nodesByQueue().values()).allSatisfy(nodes -> assertThat(nodes).doesNotContain(SoakPlan.UNKNOWN_NODE));
    }
}
