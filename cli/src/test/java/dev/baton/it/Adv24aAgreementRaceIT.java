package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 24 (h/adv24a), finding 1: an instance whose guarantee matches the one in force writes nothing and is
 * counted as "running" only once its stream threads have joined the group. An instance with another guarantee started
 * in that window (a supervisor restarting the old instance while the operator starts the switched one, or the reverse)
 * sees an empty group, changes the value in force, and both run: the mixed application id h/adv23x showed leaves callers
 * unanswered. Nothing re-checks once the group is joined.
 */
class Adv24aAgreementRaceIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";

    @Test
    //@Disabled("adv24a: the agreement counts an instance only once it is in the group; a change made before then passes beside it (not a small fix: needs a start record per instance or a re-check after joining)")
    void anInstanceStartedWithAnotherGuaranteeWhileTheFirstIsJoiningIsRefused() throws Exception {
        String appId = "baton-adv24a-race";
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        // at-least-once is in force (an earlier instance claimed it and stopped)
        try (BatonStreamsApp earlier = app(appId, "at_least_once", KEY).start()) {
            earlier.awaitRunning(Duration.ofSeconds(60));
        }
        awaitNoInstance(appId);

        BatonStreamsApp alo = app(appId, "at_least_once", KEY);
        BatonStreamsApp eos = app(appId, "exactly_once_v2", null);
        try {
            alo.start(); // agrees (nothing to write), then joins the group
            Throwable refused = null;
            try {
                eos.start(); // the group is still empty: the guarantee "switches" under the running at-least-once instance
            } catch (IllegalStateException e) {
                refused = e;
                System.out.println("ADV24A refused: " + e.getMessage());
            }
            if (refused == null) {
                alo.awaitRunning(Duration.ofSeconds(60));
                eos.awaitRunning(Duration.ofSeconds(60));
            }
            assertThat(refused).as("an exactly-once instance started beside an at-least-once one (both %s / %s)",
                    alo.state(), eos.state()).isNotNull();
        } finally {
            eos.close();
            alo.close();
        }
    }

    static void awaitNoInstance(String appId) {
        awaitNoInstance(KAFKA.bootstrapServers(), appId);
    }

    static void awaitNoInstance(String bootstrap, String appId) {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.describeConsumerGroups(List.of(appId)).all().get().get(appId)
                    .members().isEmpty());
        }
    }

    static BatonStreamsApp app(String appId, String guarantee, String key) throws Exception {
        return app(KAFKA.bootstrapServers(), appId, guarantee, key, false);
    }

    static BatonStreamsApp app(String bootstrap, String appId, String guarantee, String key, boolean rotate) throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        config.put("token.key.rotate", Boolean.toString(rotate));
        config.put("application.id", appId);
        config.put("state.dir", Files.createTempDirectory("adv24a-").toString());
        config.put("processing.guarantee", guarantee);
        if (key != null) {
            config.put("token.key", key);
        }
        config.put("hanging.transaction.check.ms", "0");
        return new BatonStreamsApp(config, new SimpleMeterRegistry());
    }

    static void startAndClose(BatonStreamsApp app) {
        try {
            app.start();
        } finally {
            app.close();
        }
    }
}
