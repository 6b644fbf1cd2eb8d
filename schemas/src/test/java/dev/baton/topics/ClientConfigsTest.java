package dev.baton.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ClientConfigsTest {

    /** A process's settings as a user writes them: security, a client id, and keys of other client types and of Baton. */
    private static final Map<String, Object> SETTINGS = Map.of("bootstrap.servers", "b:9092", "security.protocol", "SSL",
            "client.id", "mine", "group.id", "theirs", "acks", "1", "enable.idempotence", false, "linger.ms", 7,
            "baton.client.id", "billing", "max.poll.records", 5);

    @Test
    void shouldMakeEveryProducerDurableOverWhatTheUserPassedAndKeepOnlyProducerKeys() {
        Map<String, Object> p = ClientConfigs.durableProducer(SETTINGS);

        assertThat(p).containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("bootstrap.servers", "b:9092").containsEntry("security.protocol", "SSL")
                .containsEntry("client.id", "mine").containsEntry("linger.ms", 7)
                .doesNotContainKeys("group.id", "baton.client.id", "max.poll.records", "transactional.id");
    }

    @Test
    void shouldGiveATransactionalProducerItsIdAndTheDurableSettings() {
        Map<String, Object> p = ClientConfigs.transactionalProducer(SETTINGS, "baton-worker-q-w1");

        assertThat(p).containsEntry("transactional.id", "baton-worker-q-w1").containsEntry("acks", "all")
                .containsEntry("enable.idempotence", true).doesNotContainKey("group.id");
    }

    @Test
    void shouldPutAGroupConsumerInItsGroupWithoutAutoCommitReadingCommittedFromTheGivenReset() {
        Map<String, Object> c = ClientConfigs.groupConsumer(SETTINGS, "baton-workers-q", "earliest");

        assertThat(c).containsEntry("group.id", "baton-workers-q").containsEntry("enable.auto.commit", false)
                .containsEntry("isolation.level", "read_committed").containsEntry("auto.offset.reset", "earliest")
                .containsEntry("max.poll.records", 5).containsEntry("security.protocol", "SSL")
                .doesNotContainKeys("acks", "linger.ms", "enable.idempotence", "baton.client.id");
    }

    @Test
    void shouldKeepAnAssignedReaderOutOfEveryGroup() {
        Map<String, Object> c = ClientConfigs.assignedReader(SETTINGS);

        assertThat(c).doesNotContainKeys("group.id", "acks").containsEntry("enable.auto.commit", false)
                .containsEntry("isolation.level", "read_committed");
    }

    @Test
    void shouldBuildAnAdminFromABootstrapAloneOrFromSettings() {
        assertThat(ClientConfigs.admin("b:9092")).isEqualTo(Map.of("bootstrap.servers", "b:9092"));
        assertThat(ClientConfigs.admin(SETTINGS)).containsEntry("security.protocol", "SSL").containsEntry("client.id", "mine")
                .doesNotContainKeys("acks", "group.id", "linger.ms", "baton.client.id");
    }

    @Test
    void shouldWriteInlineSettingsWithExtraOverTheBootstrapAndNeverModifyTheirInput() {
        Map<String, Object> extra = Map.of("baton.client.id", "probe");

        Map<String, Object> s = ClientConfigs.settings("b:9092", extra);
        Map<String, Object> p = ClientConfigs.durableProducer("b:9092", Map.of("client.id", "raw", "acks", "0"));
        s.put("added", 1);

        assertThat(s).containsEntry("bootstrap.servers", "b:9092").containsEntry("baton.client.id", "probe");
        assertThat(extra).containsOnlyKeys("baton.client.id");
        assertThat(p).containsEntry("client.id", "raw").containsEntry("acks", "all");
    }
}
