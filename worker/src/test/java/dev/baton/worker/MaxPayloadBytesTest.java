package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;

import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.ReportLimits;
import org.junit.jupiter.api.Test;

/**
 * A worker and a completion client check outputs against the streams app's {@code max.payload.bytes}
 * when it is configured, under the streams app's own key: otherwise an output between the default and
 * the configured limit is refused by one side and not the other.
 */
class MaxPayloadBytesTest {

    private static final String TOKEN = new CompletionRef(new SiteKey("ns", "wf", "a"), 1, 1, CompletionToken.random().value()).render();

    @Test
    void shouldTakeTheStreamsAppsKeyFromTheWorkersConfigFile() {
        WorkerOptions options = new WorkerConfig(Map.of("bootstrap.servers", "localhost:1", "max.payload.bytes", "1024")).toOptions()
                .queues("q").handler("t", (ctx, in) -> in).build();

        assertThat(options.maxPayloadBytes()).isEqualTo(1024);
        assertThat(WorkerConfig.CONFIG.names()).as("documented by baton config docs").contains("max.payload.bytes");
    }

    @Test
    void shouldDefaultToTheStreamsAppsDefault() {
        WorkerOptions options = WorkerOptions.builder().bootstrapServers("localhost:1").queues("q").handler("t", (ctx, in) -> in).build();

        assertThat(options.maxPayloadBytes()).isEqualTo(ReportLimits.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    @Test
    void shouldRefuseAnOutputOverTheCompletionClientsConfiguredLimitWithoutSendingIt() {
        try (ActivityCompletionClient client = ActivityCompletionClient.create(Map.of("bootstrap.servers", "localhost:1",
                "max.payload.bytes", 8), "mem://" + UUID.randomUUID())) {
            assertThatThrownBy(() -> client.complete(TOKEN, new byte[9])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max.payload.bytes 8").hasMessageContaining("was 9");
        }
    }
}
