package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.worker.WorkerConfig;
import org.junit.jupiter.api.Test;

class ConfigCommandTest {

    @Test
    void shouldPrintEveryKeyOfEveryProcess() {
        CliRun run = CliRun.of("config", "docs");
        assertThat(run.exit()).isZero();
        for (var def : List.of(StreamsAppConfig.CONFIG, WorkerConfig.CONFIG, DispatchClientConfig.CONFIG)) {
            for (String key : def.names()) {
                assertThat(run.output()).as(key).contains(key);
            }
        }
        assertThat(run.output()).contains("transport.loss.budget", "long", "default 3");
    }
}
