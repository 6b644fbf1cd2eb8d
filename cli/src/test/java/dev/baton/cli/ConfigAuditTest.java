package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ConfigAuditTest {

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
