package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * adv23c: every process reads {@code basic.auth.user.info} (the credentials of an {@code http(s)://}
 * schema registry, docs: SchemaRegistry.forUrl). The start-up audit warned it as unknown, "ignored or
 * passed to Kafka, which ignores it", and proposed another key: an operator following the advice
 * removes the registry's credentials, and every process then fails to register or read a schema.
 */
class Adv23cConfigAuditRegistryKeyTest {

    @Test
    void shouldKnowTheRegistryCredentialsKey() {
        for (ProcessKeys process : ProcessKeys.values()) {
            assertThat(ConfigAudit.unknownKeys(Map.of("basic.auth.user.info", "u:p"), process)).as(process.processName()).isEmpty();
        }
    }
}
