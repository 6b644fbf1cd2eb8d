package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.worker.WorkerConfig;
import org.junit.jupiter.api.Test;

class ConfigCommandTest {

    @Test
    void shouldPrintEveryKeyOfEveryProcess() {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = BatonCommand.run("config", "docs");
        } finally {
            System.setOut(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).isZero();
        for (var def : java.util.List.of(StreamsAppConfig.CONFIG, WorkerConfig.CONFIG, DispatchClientConfig.CONFIG)) {
            for (String key : def.names()) {
                assertThat(out).as(key).contains(key);
            }
        }
        assertThat(out).contains("transport.loss.budget", "long", "default 3");
    }
}
