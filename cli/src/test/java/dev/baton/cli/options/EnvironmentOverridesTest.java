package dev.baton.cli.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class EnvironmentOverridesTest {

    @Test
    void shouldMapBatonVariablesToKeys() {
        assertThat(EnvironmentOverrides.keyOf("BATON_WORKER_QUEUES")).isEqualTo("worker.queues");
        assertThat(EnvironmentOverrides.keyOf("BATON_SCHEMA_REGISTRY_URL")).isEqualTo("schema.registry.url");
        assertThat(EnvironmentOverrides.keyOf("BATON_MY__ODD_KEY")).isEqualTo("my_odd.key");
    }

    @Test
    void shouldTakeOnlyBatonVariablesThatAreNotTheLaunchers() {
        Map<String, String> env = Map.of("BATON_WORKER_QUEUES", "a,b", "BATON_LIB_DIR", "/opt/lib", "PATH", "/bin", "BATON_", "x");
        assertThat(EnvironmentOverrides.of(env)).containsExactly(Map.entry("worker.queues", "a,b"));
    }

    @Test
    void shouldApplyEnvironmentOverFileAndUnderCommandLine() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("baton", ".properties");
        try {
            java.nio.file.Files.writeString(file, "worker.queues=from-file\nbootstrap.servers=file:9092\nworker.max.concurrent=4\n");
            ClientOptions options = new ClientOptions().environment(Map.of("BATON_WORKER_QUEUES", "payments,emails",
                    "BATON_BOOTSTRAP_SERVERS", "env:9092"));
            options.config = file;
            options.bootstrapServers = "flag:9092";
            Map<String, Object> config = options.clientConfig();
            assertThat(config).containsEntry("worker.queues", "payments,emails").containsEntry("bootstrap.servers", "flag:9092")
                    .containsEntry("worker.max.concurrent", "4");
        } finally {
            java.nio.file.Files.delete(file);
        }
    }
}
