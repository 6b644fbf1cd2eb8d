package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Runs the dispatch benchmark at toy size: it must complete and print both sides and the ratio (no timing asserted). */
class BenchDispatchIT {

    @Test
    void shouldMeasureBothSidesAndPrintTheRatio() {
        CliRun run = CliRun.of("bench", "dispatch", "--rates", "50", "--seconds", "1", "--burst", "100", "--partitions", "3");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("raw three-hop  max sustained: 100 activities", "baton          max sustained: 100 activities",
                "at    50/s", "baton/raw", "records per activity");
    }
}
