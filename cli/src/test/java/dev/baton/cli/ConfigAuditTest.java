package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ConfigAuditTest {

    @Test
    void shouldMapBatonVariablesToKeys() {
        assertThat(ConfigAudit.keyOf("BATON_WORKER_QUEUES")).isEqualTo("worker.queues");
        assertThat(ConfigAudit.keyOf("BATON_SCHEMA_REGISTRY_URL")).isEqualTo("schema.registry.url");
        assertThat(ConfigAudit.keyOf("BATON_MY__ODD_KEY")).isEqualTo("my_odd.key");
    }

    @Test
    void shouldTakeOnlyBatonVariablesThatAreNotTheLaunchers() {
        Map<String, String> env = Map.of("BATON_WORKER_QUEUES", "a,b", "BATON_LIB_DIR", "/opt/lib", "PATH", "/bin", "BATON_", "x");
        assertThat(ConfigAudit.environmentOverrides(env)).containsExactly(Map.entry("worker.queues", "a,b"));
    }

    @Test
    void shouldApplyEnvironmentOverFileAndUnderCommandLine() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("baton", ".properties");
        try {
            java.nio.file.Files.writeString(file, "worker.queues=from-file\nbootstrap.servers=file:9092\nworker.max.concurrent=4\n");
            ClientOptions options = new ClientOptions();
            options.config = file;
            options.bootstrapServers = "flag:9092";
            options.environment = Map.of("BATON_WORKER_QUEUES", "payments,emails", "BATON_BOOTSTRAP_SERVERS", "env:9092");
            Map<String, Object> config = options.clientConfig();
            assertThat(config).containsEntry("worker.queues", "payments,emails").containsEntry("bootstrap.servers", "flag:9092")
                    .containsEntry("worker.max.concurrent", "4");
        } finally {
            java.nio.file.Files.delete(file);
        }
    }

    @Test
    void shouldWarnAboutAMisspeltKeyNamingTheClosestKnownKey() {
        List<String> warnings = ConfigAudit.unknownKeys(Map.of("worker.max.concurent", "4", "bootstrap.servers", "x:9092"), ProcessKeys.WORKER);
        assertThat(warnings).singleElement().satisfies(w -> assertThat(w)
                .contains("'worker.max.concurent'", "worker", "did you mean 'worker.max.concurrent'?"));
    }

    @Test
    void shouldKnowStreamsPrefixedKeysAndQueueTimeouts() {
        Map<String, Object> config = Map.of("producer.linger.ms", "5", "queue.payments.start.to.close.ms", "1000", "num.standby.replicas", "1",
                "dedupe.window.ms", "1", "dedupe.windw.ms", "1");
        assertThat(ConfigAudit.unknownKeys(config, ProcessKeys.STREAMS_APP)).singleElement()
                .satisfies(w -> assertThat(w).contains("did you mean 'dedupe.window.ms'?"));
    }

    @Test
    void shouldMaskSecretsWhenLogging() {
        Map<String, String> masked = ConfigAudit.masked(Map.of("token.key", "c2VjcmV0c2VjcmV0c2VjcmV0", "ssl.key.password", "pw",
                "sasl.jaas.config", "org.apache.kafka... password=\"p\";", "bootstrap.servers", "b:9092"), ProcessKeys.STREAMS_APP);
        assertThat(masked).containsEntry("token.key", "[hidden]").containsEntry("ssl.key.password", "[hidden]")
                .containsEntry("sasl.jaas.config", "[hidden]").containsEntry("bootstrap.servers", "b:9092");
    }

    @Test
    void shouldMeasureEditDistance() {
        assertThat(ConfigAudit.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(ConfigAudit.editDistance("", "abc")).isEqualTo(3);
        assertThat(ConfigAudit.editDistance("same", "same")).isZero();
    }
}
