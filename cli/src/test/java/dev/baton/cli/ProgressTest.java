package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

class ProgressTest {

    @Test
    void shouldPrintPlainLinesWithCountsWhenNotATerminal() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        List<CompletableFuture<String>> futures = List.of(CompletableFuture.completedFuture("a"), new CompletableFuture<>(),
                CompletableFuture.completedFuture("b"));
        new Progress(out, futures, System.nanoTime(), false).close();

        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).startsWith("progress  dispatched 3, resolved 2, in flight 1, ").endsWith("/s" + System.lineSeparator());
        assertThat(printed).doesNotContain("\r", "[#");
    }

    @Test
    void shouldRedrawABarInPlaceOnATerminal() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        new Progress(out, List.of(CompletableFuture.completedFuture("a")), System.nanoTime(), true).close();

        assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("\r[" + "#".repeat(30) + "] dispatched 1, resolved 1");
    }
}
