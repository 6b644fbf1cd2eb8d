package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class DispatchClientConfigTest {

    @Test
    void shouldRequireAClientId() {
        assertThatThrownBy(() -> new DispatchClientConfig(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Missing required configuration \"baton.client.id\" which has no default value.");
    }

    @Test
    void shouldRejectAnEmptyClientId() {
        assertThatThrownBy(() -> new DispatchClientConfig(Map.of("baton.client.id", "")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value  for configuration baton.client.id");
    }

    @Test
    void shouldDefaultToAOneMegabytePayloadAHundredThousandPendingAndNoTimeout() {
        DispatchClientConfig config = new DispatchClientConfig(Map.of("baton.client.id", "billing-1"));

        assertThat(config.clientId()).isEqualTo("billing-1");
        assertThat(config.getInt(DispatchClientConfig.MAX_PAYLOAD_BYTES_CONFIG)).isEqualTo(524_288);
        assertThat(config.getInt(DispatchClientConfig.MAX_PENDING_CONFIG)).isEqualTo(100_000);
        assertThat(config.getLong(DispatchClientConfig.DISPATCH_TIMEOUT_MS_CONFIG)).isZero();
        assertThat(config.getString(DispatchClientConfig.SCHEMA_REGISTRY_URL_CONFIG)).isEqualTo("kafka://");
    }

    @Test
    void shouldRejectAPendingLimitBelowOne() {
        assertThatThrownBy(() -> new DispatchClientConfig(Map.of("baton.client.id", "billing-1", "max.pending", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value 0 for configuration max.pending");
    }

    @Test
    void shouldRejectANegativeDispatchTimeout() {
        assertThatThrownBy(() -> new DispatchClientConfig(Map.of("baton.client.id", "billing-1", "dispatch.timeout.ms", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value -1 for configuration dispatch.timeout.ms");
    }

    @Test
    void shouldRejectANegativePayloadLimit() {
        assertThatThrownBy(() -> new DispatchClientConfig(Map.of("baton.client.id", "billing-1", "max.payload.bytes", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value -1 for configuration max.payload.bytes");
    }

    @Test
    void shouldGiveTheKafkaClientsEverythingButBatonsOwnSettings() {
        DispatchClientConfig config = new DispatchClientConfig(Map.of("baton.client.id", "billing-1", "max.pending", "5",
                "schema.registry.url", "mem://x", "security.protocol", "SSL", "linger.ms", "5"));

        assertThat(config.kafkaConfig()).containsOnly(
                Map.entry("security.protocol", "SSL"), Map.entry("linger.ms", "5"), Map.entry("bootstrap.servers", "localhost:9092"));
    }

    @Test
    void shouldGiveTheKafkaClientsTheConfiguredBootstrapServers() {
        DispatchClientConfig config = new DispatchClientConfig(Map.of("baton.client.id", "billing-1", "bootstrap.servers", "broker:9093"));

        assertThat(config.kafkaConfig()).containsEntry("bootstrap.servers", "broker:9093");
    }

    @Test
    void shouldWaitAMinuteByDefaultForAKilledPredecessorsHoldOnTheIdAndRejectANegativeWait() {
        Map<String, Object> base = Map.of("baton.client.id", "billing-1");
        assertThat(new DispatchClientConfig(base).getLong(DispatchClientConfig.CLIENT_ID_WAIT_MS_CONFIG)).isEqualTo(60_000L);

        Map<String, Object> negative = new java.util.HashMap<>(base);
        negative.put(DispatchClientConfig.CLIENT_ID_WAIT_MS_CONFIG, "-1");
        assertThatThrownBy(() -> new DispatchClientConfig(negative)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("client.id.wait.ms");
    }
}
