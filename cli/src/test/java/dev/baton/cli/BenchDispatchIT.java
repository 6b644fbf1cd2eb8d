package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Runs the dispatch benchmark at toy size: it must complete and print both sides and the ratio (no timing asserted). */
class BenchDispatchIT {

    @Test
    void shouldMeasureBothSidesAndPrintTheRatio() {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = BatonCommand.run("bench", "dispatch", "--rates", "50", "--seconds", "1", "--burst", "100", "--partitions", "3");
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(out).isZero();
        assertThat(out).contains("raw three-hop  max sustained: 100 activities", "baton          max sustained: 100 activities",
                "at    50/s", "baton/raw", "records per activity");
    }
}
