package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScaleCommandTest {

    @Test
    void shouldBeASubcommandOfTheSoakWithItsPhases() {
        CliRun run = CliRun.of("soak", "scale", "--help");

        assertThat(run.exit()).isZero();
        assertThat(run.output()).contains("--phases", "--pending", "--queues", "--consumers", "--stall-s");
    }

    @Test
    void shouldRefuseAPhaseItDoesNotKnowAndMoreWorkersThanQueues() {
        assertThat(CliRun.of("soak", "scale", "--phases", "pending,bogus").exit()).isEqualTo(2);
        assertThat(CliRun.of("soak", "scale", "--queues", "2", "--queue-workers", "3").exit()).isEqualTo(2);
        assertThat(CliRun.of("soak", "scale", "--stall-rate", "0").exit()).isEqualTo(2);
        assertThat(CliRun.of("soak", "scale", "--streams-config", "commit.interval.ms").exit()).isEqualTo(2);
    }

    @Test
    void shouldRefuseNoPatience() {
        assertThat(CliRun.of("soak", "scale", "--timeout-minutes", "0").exit()).isEqualTo(2);
    }
}
