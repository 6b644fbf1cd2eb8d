package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Demo flags that cannot work are refused before anything starts. */
class DemoOptionsTest {

    @Test
    void shouldRefuseFewerThanThreeWorkersWhenFaultsAreOn() {
        assertThat(CliRun.of("demo", "--workers", "2").exit()).isEqualTo(2);
    }

    @Test
    void shouldRefuseZeroWorkers() {
        assertThat(CliRun.of("demo", "--workers", "0", "--no-faults").exit()).isEqualTo(2);
    }
}
