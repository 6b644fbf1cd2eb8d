package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 22 (streams-app restarts), finding 4. An activity that sets no heartbeat window gets the streams app's
 * {@code heartbeat.window.ms} (30 s): its task tells the worker so, and the worker heartbeats every 10 s. The operator
 * restarts the app with a lower default (here 1 s, {@code transport.loss.budget=0}). The row kept no window, so the
 * running lease was judged by the new one: its next heartbeat armed a 1 s deadline, the worker (keeping the 10 s it was
 * told) missed it, and a healthy run was declared lost; with the budget spent its caller got
 * {@code transport-exhausted:} while the handler was still running (with budget left, the run is redelivered and runs
 * twice). The row now keeps the window its task named.
 */
class Adv22sHeartbeatWindowRestartIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void aRunningLeaseIsJudgedByTheWindowItsWorkerWasTold() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        Path stateDir = TempDirs.create("adv22s-hb-");
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> started = new CompletableFuture<>();
        Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        clientConfig.put("baton.client.id", "adv22s-hb");
        try (Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(ClientConfigs.bootstrap(bootstrap)).workerId("adv22s-hb")
                     .queues("q").handler("long", (ctx, input) -> {
                         runs.incrementAndGet();
                         started.complete(null);
                         release.await(120, TimeUnit.SECONDS);
                         return "done".getBytes(UTF_8);
                     }).build());
             DispatchClient client = DispatchClient.create(clientConfig, unmatched -> { })) {
            CompletableFuture<ActivityOutcome> outcome;
            try (BatonStreamsApp before = app(bootstrap, stateDir, Map.of())) {
                outcome = client.dispatch(ActivityRequest.builder().site("shop", "order-9", "long").queue("q").activityType("long")
                        .input("x".getBytes(UTF_8), "text/plain").build());
                started.get(60, TimeUnit.SECONDS);
            }
            try (BatonStreamsApp after = app(bootstrap, stateDir, Map.of("heartbeat.window.ms", 1_000L, "transport.loss.budget", 0))) {
                // The worker heartbeats every 10 s: within 13 s of the restart the lowered window has had its chance to fire.
                try {
                    await().during(Duration.ofSeconds(13)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                            .until(() -> !outcome.isDone() && runs.get() == 1);
                } catch (ConditionTimeoutException lostOrRerun) {
                    // reported below
                }
                assertThat(outcome.isDone() ? outcome.get().reason() : "not answered yet").as("a healthy run was declared lost")
                        .isEqualTo("not answered yet");
                release.countDown();
                ActivityOutcome answer = outcome.get(60, TimeUnit.SECONDS);
                assertThat(answer.completed()).as(answer.reason()).isTrue();
                assertThat(runs.get()).as("runs of the handler").isEqualTo(1);
            }
        } finally {
            release.countDown();
        }
    }

    private static BatonStreamsApp app(String bootstrap, Path stateDir, Map<String, Object> overrides) throws Exception {
        Map<String, Object> config = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        config.put("state.dir", stateDir.toString());
        config.put("hanging.transaction.check.ms", 0L);
        config.putAll(overrides);
        BatonStreamsApp app = new BatonStreamsApp(config, new SimpleMeterRegistry()).start();
        app.awaitRunning(Duration.ofSeconds(60));
        return app;
    }
}
