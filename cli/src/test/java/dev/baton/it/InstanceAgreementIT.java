package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.streams.config.InstanceAgreement;
import dev.baton.testkit.TempDirs;
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
 * instances now compare a fingerprint of the key at start ({@link InstanceAgreement}): one with another key refuses to
 * start, and the key changes only by a rotation made while no instance runs. The same round's mixed application id
 * (exactly-once and at-least-once instances together) left callers unanswered; the instances now compare their
 * processing guarantee the same way, and it changes only while no instance runs.
 */
class InstanceAgreementIT {

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
                    .hasMessageContaining("token.key differs").hasMessageContaining(InstanceAgreement.topic(APP_ID))
                    .hasMessageNotContaining(KEY_1).hasMessageNotContaining(KEY_2);
            assertThatThrownBy(() -> startAndClose(app(KEY_2, true))).as("a rotation while an instance runs")
                    .hasMessageContaining("stop every instance");
            startAndClose(app(KEY_1, false)); // the same key: a second instance joins
        }
        awaitNoInstance(APP_ID);
        startAndClose(app(KEY_2, true)); // every instance stopped: the key rotates
        assertThatThrownBy(() -> startAndClose(app(KEY_1, false))).as("the old key after the rotation")
                .hasMessageContaining("token.key differs");
        startAndClose(app(KEY_2, false));
    }

    @Test
    void anInstanceWithAnotherGuaranteeRefusesToStartAndTheGuaranteeChangesOnlyWithEveryInstanceStopped() throws Exception {
        String appId = "baton-guarantees";
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        try (BatonStreamsApp first = app(appId, "exactly_once_v2", null, false).start()) {
            assertThatThrownBy(() -> startAndClose(app(appId, "at_least_once", KEY_1, false))).as("at-least-once beside exactly-once")
                    .hasMessageContaining("processing.guarantee=at_least_once differs").hasMessageContaining("exactly_once_v2")
                    .hasMessageContaining(InstanceAgreement.topic(appId)).hasMessageContaining("stop every instance");
            startAndClose(app(appId, "exactly_once_v2", KEY_1, false)); // the same guarantee joins, with a key or without
        }
        awaitNoInstance(appId);
        startAndClose(app(appId, "at_least_once", KEY_1, false)); // every instance stopped: the application id switches
        try (BatonStreamsApp alo = app(appId, "at_least_once", KEY_1, false).start()) {
            assertThatThrownBy(() -> startAndClose(app(appId, "exactly_once_v2", null, false))).as("exactly-once beside at-least-once")
                    .hasMessageContaining("processing.guarantee=exactly_once_v2 differs");
        }
    }

    private static void awaitNoInstance(String appId) {
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.describeConsumerGroups(List.of(appId)).all().get().get(appId)
                    .members().isEmpty());
        }
    }

    private static BatonStreamsApp app(String key, boolean rotate) throws Exception {
        return app(APP_ID, "at_least_once", key, rotate);
    }

    private static BatonStreamsApp app(String appId, String guarantee, String key, boolean rotate) throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(KAFKA.bootstrapServers()));
        config.put("application.id", appId);
        config.put("state.dir", TempDirs.create("instances-").toString());
        config.put("processing.guarantee", guarantee);
        if (key != null) {
            config.put("token.key", key);
        }
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
