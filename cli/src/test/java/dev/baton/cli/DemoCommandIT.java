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
                "progress  dispatched 300", "(all 300 sent at once: mostly time waiting for one of 96 worker slots");
        // 300 activities: every 20th flaky (15), every 50th from 1 terminal (6), every 10th from 3 long (30), the rest echo
        assertThat(run.output()).containsPattern("stats     flaky\\s+15\\s").containsPattern("stats     terminal\\s+6\\s")
                .containsPattern("stats     long\\s+30\\s").containsPattern("stats     echo\\s+249\\s");
    }

    @Test
    void shouldExitNonZeroWhenTheAuditFindsABreach() {
        CliRun run = CliRun.of("demo", "--activities", "50", "--partitions", "3", "--no-faults", "--inject-breach");
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("got 2 distinct outcomes, expected exactly 1");
    }
}
