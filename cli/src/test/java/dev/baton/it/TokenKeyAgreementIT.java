package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.streams.config.TokenKeyAgreement;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 23 (h/adv23x), finding 2: instances of one application id with different {@code token.key} values gave a
 * request id two distinct outcomes after an at-least-once crash that lost a row's write (the instance taking over refused
 * the delivered token as forged; {@code Adv23xTokenKeyMismatchIT} shows the damage with one key as its control). The
 * instances now compare a fingerprint of the key at start ({@link TokenKeyAgreement}): one with another key refuses to
 * start, and the key changes only by a rotation made while no instance runs.
 */
class TokenKeyAgreementIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY_1 = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";
    private static final String KEY_2 = "YWR2MjN4LXRva2VuLWtleS10d28tMzItYnl0ZXMtISE=";
    private static final String APP_ID = "baton-keys";

    @Test
    void anInstanceWithAnotherKeyRefusesToStartAndTheKeyRotatesOnlyWithEveryInstanceStopped() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        try (BatonStreamsApp first = app(KEY_1, false).start()) {
            assertThatThrownBy(() -> startAndClose(app(KEY_2, false))).as("another key while the first instance runs")
                    .hasMessageContaining("token.key differs").hasMessageContaining(TokenKeyAgreement.topic(APP_ID))
                    .hasMessageNotContaining(KEY_1).hasMessageNotContaining(KEY_2);
            assertThatThrownBy(() -> startAndClose(app(KEY_2, true))).as("a rotation while an instance runs")
                    .hasMessageContaining("stop every instance");
            startAndClose(app(KEY_1, false)); // the same key: a second instance joins
        }
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.describeConsumerGroups(List.of(APP_ID)).all().get().get(APP_ID)
                    .members().isEmpty());
        }
        startAndClose(app(KEY_2, true)); // every instance stopped: the key rotates
        assertThatThrownBy(() -> startAndClose(app(KEY_1, false))).as("the old key after the rotation")
                .hasMessageContaining("token.key differs");
        startAndClose(app(KEY_2, false));
    }

    private static BatonStreamsApp app(String key, boolean rotate) throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(KAFKA.bootstrapServers()));
        config.put("application.id", APP_ID);
        config.put("state.dir", Files.createTempDirectory("token-keys-").toString());
        config.put("processing.guarantee", "at_least_once");
        config.put("token.key", key);
        config.put("token.key.rotate", Boolean.toString(rotate));
        config.put("hanging.transaction.check.ms", "0");
        return new BatonStreamsApp(config, new SimpleMeterRegistry());
    }

    private static void startAndClose(BatonStreamsApp app) {
        try {
            app.start();
        } finally {
            app.close();
        }
    }
}
