package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class TopicsCommandTest {

    @Test
    void shouldApplyABareNodeToEveryQueueGiven() {
        assertThat(TopicsCommand.Create.nodesByQueue(List.of("a", "b"), List.of("n1")))
                .isEqualTo(Map.of("a", List.of("n1"), "b", List.of("n1")));
    }

    @Test
    void shouldApplyAQueueSlashNodeToThatQueueOnly() {
        assertThat(TopicsCommand.Create.nodesByQueue(List.of("a", "b"), List.of("b/n2", "c/n3")))
                .isEqualTo(Map.of("b", List.of("n2"), "c", List.of("n3")));
    }

    @Test
    void shouldRefuseABareNodeWithoutAQueue() {
        assertThatThrownBy(() -> TopicsCommand.Create.nodesByQueue(List.of(), List.of("n1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--node 'n1' names no queue");
    }

    @Test
    void shouldRefuseAMalformedQueueSlashNode() {
        for (String bad : List.of("/n1", "a/", "a/b/c")) {
            assertThatThrownBy(() -> TopicsCommand.Create.nodesByQueue(List.of(), List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("--node must be NODE or QUEUE/NODE, was '" + bad + "'");
        }
    }

    @Test
    void shouldExitWithAUsageErrorNamingTheBadNode() {
        CliRun run = CliRun.of("topics", "create", "--bootstrap-servers", "localhost:1", "--queue", "a", "--node", "n.1");

        assertThat(run.exit()).isEqualTo(2);
    }
}
