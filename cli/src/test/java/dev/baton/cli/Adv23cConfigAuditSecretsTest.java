package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * adv23c: the effective configuration each process logs at start must not carry a secret. Secrets
 * the pattern did not know were logged whole: the schema registry's basic-auth {@code user:password}
 * ({@code basic.auth.user.info}, Baton's own registry key), a PEM private key given inline
 * ({@code ssl.keystore.key}, a PASSWORD in Kafka's own config definitions) and an OAuth assertion key's
 * passphrase; the streams app's prefixed copies of them ({@code producer.ssl.keystore.key}) too.
 */
class Adv23cConfigAuditSecretsTest {

    private static final String PEM = "-----BEGIN ENCRYPTED PRIVATE KEY-----MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI-----END ENCRYPTED PRIVATE KEY-----";

    @Test
    void noSecretIsLoggedInTheClear() {
        Map<String, String> config = Map.of(
                "basic.auth.user.info", "registry-user:hunter2-registry",
                "ssl.keystore.key", PEM,
                "sasl.oauthbearer.assertion.private.key.passphrase", "oauth-passphrase-42",
                "producer.ssl.keystore.key", PEM,
                "bootstrap.servers", "kafka-1:9093");
        for (ProcessKeys process : ProcessKeys.values()) {
            Map<String, String> masked = ConfigAudit.masked(config, process);
            assertThat(masked.get("basic.auth.user.info")).as(process + " basic.auth.user.info").isEqualTo("[hidden]");
            assertThat(masked.get("ssl.keystore.key")).as(process + " ssl.keystore.key").isEqualTo("[hidden]");
            assertThat(masked.get("sasl.oauthbearer.assertion.private.key.passphrase")).as(process + " passphrase").isEqualTo("[hidden]");
            assertThat(masked.get("producer.ssl.keystore.key")).as(process + " producer.ssl.keystore.key").isEqualTo("[hidden]");
            assertThat(masked.get("bootstrap.servers")).as("not a secret").isEqualTo("kafka-1:9093");
            assertThat(masked.values()).noneMatch(v -> v.contains("hunter2") || v.contains("PRIVATE KEY") || v.contains("oauth-passphrase"));
        }
    }
}
