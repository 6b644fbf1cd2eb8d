package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.streams.BatonStreamsApp;
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
 * Adversary round 24 (h/adv24a), finding 1: an instance whose guarantee matches the one in force writes nothing and is
 * counted as "running" only once its stream threads have joined the group. An instance with another guarantee started
 * in that window (a supervisor restarting the old instance while the operator starts the switched one, or the reverse)
 * sees an empty group, changes the value in force, and both ran: the mixed application id h/adv23x showed leaves callers
 * unanswered. Each instance now checks again once it runs, and the one whose guarantee is no longer in force stops.
 */
class Adv24aAgreementRaceIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String KEY = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";

    @Test
    void anAtLeastOnceAndAnExactlyOnceInstanceStartedTogetherNeverBothRun() throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(KAFKA.bootstrapServers()))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        // One attempt lets both start about 1 in 3 times on this machine (h/adv24a): three attempts, for CI's time.
        for (int attempt = 0; attempt < 3; attempt++) {
            String appId = "baton-adv24a-race-" + attempt;
            // at-least-once is in force (an earlier instance claimed it, joined and stopped)
            try (BatonStreamsApp earlier = app(appId, "at_least_once", KEY).start()) {
                earlier.awaitRunning(Duration.ofSeconds(60));
            }
            awaitNoInstance(appId);
            BatonStreamsApp alo = app(appId, "at_least_once", KEY);
            BatonStreamsApp eos = app(appId, "exactly_once_v2", null);
            ExecutorService starts = Executors.newFixedThreadPool(2);
            try {
                // a supervisor restarts the at-least-once instance at the moment the operator starts the switched one
                CountDownLatch go = new CountDownLatch(1);
                Future<Throwable> aloStart = starts.submit(() -> startOrRefusal(go, alo));
                Future<Throwable> eosStart = starts.submit(() -> startOrRefusal(go, eos));
                go.countDown();
                Throwable aloRefused = aloStart.get(60, TimeUnit.SECONDS);
                Throwable eosRefused = eosStart.get(60, TimeUnit.SECONDS);
                if (aloRefused == null && eosRefused == null) {
                    // Both passed the check at start (neither had joined the group). Once running, each checks again, and
                    // the one whose guarantee is no longer in force stops itself.
                    await().atMost(Duration.ofSeconds(90)).until(() -> alo.refusal().isPresent() || eos.refusal().isPresent());
                    BatonStreamsApp stopped = alo.refusal().isPresent() ? alo : eos;
                    BatonStreamsApp kept = stopped == alo ? eos : alo;
                    assertThat(stopped.refusal().get()).as("attempt %d", attempt).hasMessageContaining("processing.guarantee=");
                    await().atMost(Duration.ofSeconds(60)).until(() -> !stopped.state().isRunningOrRebalancing());
                    kept.awaitRunning(Duration.ofSeconds(60));
                    assertThat(kept.refusal()).as("attempt %d: the instance whose guarantee is in force goes on", attempt).isEmpty();
                }
            } finally {
                starts.shutdownNow();
                eos.close();
                alo.close();
            }
        }
    }

    private static Throwable startOrRefusal(CountDownLatch go, BatonStreamsApp app) throws InterruptedException {
        go.await();
        try {
            app.start();
            return null;
        } catch (IllegalStateException e) {
            return e;
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
        return app(bootstrap, appId, guarantee, key, rotate, Map.of());
    }

    static BatonStreamsApp app(String bootstrap, String appId, String guarantee, String key, boolean rotate, Map<String, Object> extra)
            throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        config.putAll(extra);
        config.put("token.key.rotate", Boolean.toString(rotate));
        config.put("application.id", appId);
        config.put("state.dir", TempDirs.create("adv24a-").toString());
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
