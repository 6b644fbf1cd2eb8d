package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class DemoCommandIT {

    private record Run(int exit, String output) {
    }

    private static Run demo(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int exit = BatonCommand.run(args);
            return new Run(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    @Test
    void shouldRunTheWorkloadAndPassTheAudit() {
        Run run = demo("demo", "--activities", "300", "--partitions", "3");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("8 event types registered", "exactly one outcome of the expected kind: yes",
                "completed after retries", "terminal:", "all invariants hold", "worker-1 killed abruptly", "worker-3 drained part-way",
                "progress  dispatched 300");
    }

    @Test
    void shouldExitNonZeroWhenTheAuditFindsABreach() {
        Run run = demo("demo", "--activities", "50", "--partitions", "3", "--no-faults", "--inject-breach");
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("got 2 outcomes, expected exactly 1");
    }
}
