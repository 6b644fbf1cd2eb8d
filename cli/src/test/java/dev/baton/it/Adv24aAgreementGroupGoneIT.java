package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 24 (h/adv24a), finding 2: a change of the guarantee or a key rotation needs "no instance running",
 * asked with describeConsumerGroups. When the application id's group does not exist (every instance stopped and the group
 * deleted, or expired with its offsets after offsets.retention.minutes, or an instance that never joined), or is a streams
 * group (group.protocol=streams, which Kafka 4.4 reports as not found there), the broker answers GroupIdNotFoundException
 * and the instance refuses to start "cannot tell whether instances are running": the documented way to switch the
 * guarantee or rotate the key never works again for that application id, though no instance runs.
 */
class Adv24aAgreementGroupGoneIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY_1 = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";
    private static final String KEY_2 = "YWR2MjN4LXRva2VuLWtleS10d28tMzItYnl0ZXMtISE=";

    @Test
    void theGuaranteeSwitchesAndTheKeyRotatesWhenTheGroupIsGone() throws Exception {
        String appId = "baton-adv24a-gone";
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
            try (BatonStreamsApp alo = app(appId, "at_least_once", KEY_1, false).start()) {
                alo.awaitRunning(Duration.ofSeconds(60));
            }
            Adv24aAgreementRaceIT.awaitNoInstance(KAFKA.bootstrapServers(), appId);
            admin.deleteConsumerGroups(Set.of(appId)).all().get(); // every instance stopped; the group deleted (or expired)
        }
        // no instance runs: the key rotates, and the application id switches to exactly-once
        Adv24aAgreementRaceIT.startAndClose(app(appId, "at_least_once", KEY_2, true));
        try (BatonStreamsApp eos = app(appId, "exactly_once_v2", null, false).start()) {
            eos.awaitRunning(Duration.ofSeconds(60));
            // and while it runs, an instance of the old guarantee is refused
            assertThatThrownBy(() -> Adv24aAgreementRaceIT.startAndClose(app(appId, "at_least_once", KEY_2, false)))
                    .hasMessageContaining("processing.guarantee=at_least_once differs");
        }
    }

    private static BatonStreamsApp app(String appId, String guarantee, String key, boolean rotate) throws Exception {
        return Adv24aAgreementRaceIT.app(KAFKA.bootstrapServers(), appId, guarantee, key, rotate);
    }
}
