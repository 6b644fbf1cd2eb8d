package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.request;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): client misuse the streams app refuses is not refused by the client. A run id or a
 * {@code baton.client.id} (the reply key) over 256 characters passes the client's checks and goes out; the streams
 * app's validator then answers every such dispatch {@code terminal: invalid dispatch: ... must have <= 256
 * characters}. Contract: client misuse fails fast naming the constraint (as a queue name, an activity type or an
 * input over max.payload.bytes already do, with IllegalArgumentException before anything is sent).
 */
class Adv21ClientLimitsTest {

    private DispatchClientHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aRunIdTheStreamsAppRefusesIsRefusedBeforeItIsSent() {
        harness = DispatchClientHarness.start(Map.of());
        String runId = "r".repeat(300);

        assertThatThrownBy(() -> harness.client.dispatch(request().runId(runId).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256");
    }

    @Test
    void aClientIdTheStreamsAppRefusesAsReplyKeyIsRefusedAtConfiguration() {
        Map<String, Object> configs = DispatchClientHarness.configs("kafka://", Map.of(DispatchClientConfig.CLIENT_ID_CONFIG, "c".repeat(300)));

        assertThatThrownBy(() -> new DispatchClientConfig(configs)).hasMessageContaining("256");
    }
}
