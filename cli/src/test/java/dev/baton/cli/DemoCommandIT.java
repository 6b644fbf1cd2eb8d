package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class DemoCommandIT {

    @Test
    void shouldRunTheWorkloadAndReportEveryRequestAnsweredOnce() {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = BatonCommand.run("demo", "--activities", "300", "--partitions", "3");
        } finally {
            System.setOut(original);
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(output).isZero();
        assertThat(output).contains("8 event types registered", "0 failed", "exactly one outcome of the expected kind: yes")
                .contains("completed after retries", "terminal:");
    }
}
