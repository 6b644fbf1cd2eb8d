package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.streams.config.InstanceAgreement;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 24 (h/adv24a), finding 5: an instance claims whatever setting has no value in force, without asking
 * whether instances are running. When the agreement topic has lost its records (deleted by an operator tidying up
 * topics, or created before the first start by a script with the broker's default 7-day retention, which
 * {@code InstanceAgreement} does not check when the topic exists) an instance with another key or guarantee joins a
 * running application id unchallenged: the mixed keys of h/adv23x (a second, different outcome for one request id).
 */
class Adv24aAgreementTopicLostIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY_1 = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";
    private static final String KEY_2 = "YWR2MjN4LXRva2VuLWtleS10d28tMzItYnl0ZXMtISE=";

    @Test
    @Disabled("adv24a: a claim is made without asking whether instances run, so an emptied agreement topic lets another key join a running application id; not fixed: refusing a claim beside running instances also refuses the rolling upgrade from a version without the agreement, a choice for the owner")
    void anInstanceWithAnotherKeyIsRefusedWhileOneRunsEvenWhenTheAgreementTopicLostItsRecords() throws Exception {
        String appId = "baton-adv24a-lost";
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
            try (BatonStreamsApp first = Adv24aAgreementRaceIT.app(KAFKA.bootstrapServers(), appId, "at_least_once", KEY_1, false).start()) {
                first.awaitRunning(Duration.ofSeconds(60));
                admin.deleteTopics(Set.of(InstanceAgreement.topic(appId))).all().get();
                await().atMost(Duration.ofSeconds(30)).until(() -> !admin.listTopics().names().get().contains(InstanceAgreement.topic(appId)));

                assertThatThrownBy(() -> Adv24aAgreementRaceIT.startAndClose(
                        Adv24aAgreementRaceIT.app(KAFKA.bootstrapServers(), appId, "at_least_once", KEY_2, false)))
                        .as("another key beside a running instance, the agreement topic emptied").isInstanceOf(IllegalStateException.class);
            }
        }
    }
}
