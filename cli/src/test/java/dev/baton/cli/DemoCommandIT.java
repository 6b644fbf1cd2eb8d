package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;


import org.junit.jupiter.api.Test;

class DemoCommandIT {

    @Test
    void shouldRunTheWorkloadAndPassTheAudit() {
        CliRun run = CliRun.of("demo", "--activities", "300", "--partitions", "3");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("8 event types registered", "exactly one outcome of the expected kind: yes",
                "completed after retries", "terminal:", "all invariants hold", "worker-1 killed abruptly", "worker-3 drained part-way",
                "progress  dispatched 300");
    }

    @Test
    void shouldExitNonZeroWhenTheAuditFindsABreach() {
        CliRun run = CliRun.of("demo", "--activities", "50", "--partitions", "3", "--no-faults", "--inject-breach");
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("got 2 outcomes, expected exactly 1");
    }
}
