package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class StreamsAppCommandTest {

    @Test
    void shouldServeTheQueriesOnTheProcessPortAndNameItApplicationServer() {
        Map<String, Object> config = StreamsAppCommand.config(Map.of("status.port", "9402", "status.advertised.host", "streams-app-2"), 9400);
        assertThat(config).doesNotContainKey("status.port").containsEntry("application.server", "streams-app-2:9400");
    }

    @Test
    void shouldKeepAnExplicitApplicationServer() {
        assertThat(StreamsAppCommand.config(Map.of("application.server", "lb.example:80"), 9400)).containsEntry("application.server", "lb.example:80");
    }

    @Test
    void shouldLeaveTheConfigAloneWithoutAProcessPort() {
        assertThat(StreamsAppCommand.config(Map.of("status.port", "9402"), 0)).containsEntry("status.port", "9402")
                .doesNotContainKey("application.server");
    }
}
