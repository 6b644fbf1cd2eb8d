package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
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
 * Adversary (adv22o): the streams app answers an invalid dispatch's caller ({@code terminal: invalid dispatch: ...})
 * <em>and</em> dead-letters it. The natural operator move, raising {@code max.payload.bytes} and running
 * {@code baton dlq replay}, re-published the dispatch: it ran, and its request id got a second, different outcome
 * ({@code completed} after {@code terminal:}). DESIGN §4: at most one distinct outcome per request id. A dead-lettered
 * dispatch whose request was answered must not be replayed (its caller dispatches again under a new request id).
 */
class Adv22oAnsweredDeadLetterIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldNotReplayADispatchWhoseCallerWasAnsweredWhenItWasDeadLettered() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        clientConfig.put("baton.client.id", "adv22o-answered");
        try (DispatchClient client = DispatchClient.create(clientConfig, unmatched::add)) {
            ActivityOutcome first;
            try (BatonStreamsApp small = app(bootstrap, 1_000)) {
                first = client.dispatch(ActivityRequest.builder().site("shop", "order-5", "charge").queue("q").activityType("charge")
                        .input(new byte[5_000], "application/octet-stream").build()).get(60, TimeUnit.SECONDS);
            }
            assertThat(first.completed()).isFalse();
            assertThat(first.reason()).startsWith("terminal: invalid dispatch:").contains("max.payload.bytes 1000");

            // The operator raises the limit (the default, 512 KiB) and replays the dead letters.
            try (BatonStreamsApp raised = app(bootstrap, 524_288)) {
                CliRun replay = CliRun.of("dlq", "replay", "--all", "--bootstrap-servers", bootstrap);
                assertThat(replay.exit()).as(replay.output()).isZero();
                assertThat(replay.output()).as("its caller was answered: a replay would answer it again")
                        .contains("0 replayed").contains("skipped: request " + first.requestId() + " was answered");
            }
        }
    }

    private static BatonStreamsApp app(String bootstrap, int maxPayloadBytes) throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        config.put("state.dir", TempDirs.create("adv22o-answered-").toString());
        config.put("max.payload.bytes", maxPayloadBytes);
        BatonStreamsApp app = new BatonStreamsApp(config, new SimpleMeterRegistry()).start();
        app.awaitRunning(Duration.ofSeconds(60));
        return app;
    }
}
