package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 24 (h/adv24a), finding 5: an instance claims whatever setting has no value in force, without asking
 * whether instances are running. When the agreement topic has lost its records (deleted by an operator tidying up
 * topics, or created before the first start by a script with the broker's default 7-day retention, which
 * {@code InstanceAgreement} does not check when the topic exists) an instance with another key or guarantee joined a
 * running application id unchallenged: the mixed keys of h/adv23x (a second, different outcome for one request id).
 * The running instances now check again while they run and write their values back over a lost agreement; the
 * newcomer stops at its next check.
 */
class Adv24aAgreementTopicLostIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY_1 = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";
    private static final String KEY_2 = "YWR2MjN4LXRva2VuLWtleS10d28tMzItYnl0ZXMtISE=";

    @Test
    void anInstanceWithAnotherKeyIsRefusedWhileOneRunsEvenWhenTheAgreementTopicLostItsRecords() throws Exception {
        String appId = "baton-adv24a-lost";
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
            try (BatonStreamsApp first = Adv24aAgreementRaceIT.app(KAFKA.bootstrapServers(), appId, "at_least_once", KEY_1, false).start()) {
                first.awaitRunning(Duration.ofSeconds(60));
                // No wait for the topic to be gone: the running instance's own check makes it again within seconds.
                admin.deleteTopics(Set.of(InstanceAgreement.topic(appId))).all().get();

                // The newcomer finds no value in force and claims its key; the running instance, checking again while it
                // runs, writes its own back, and the newcomer stops at its next check: the first instance's key holds.
                try (BatonStreamsApp newcomer = Adv24aAgreementRaceIT.app(KAFKA.bootstrapServers(), appId, "at_least_once", KEY_2, false)) {
                    try {
                        newcomer.start();
                    } catch (IllegalStateException refusedAtStart) {
                        return; // refused outright: also right
                    }
                    await().atMost(Duration.ofSeconds(90)).until(() -> newcomer.refusal().isPresent());
                    assertThat(newcomer.refusal().get()).hasMessageContaining("token.key differs");
                    await().atMost(Duration.ofSeconds(60)).until(() -> !newcomer.state().isRunningOrRebalancing());
                    first.awaitRunning(Duration.ofSeconds(60));
                    assertThat(first.refusal()).as("the running instance goes on").isEmpty();
                }
            }
        }
    }
}
