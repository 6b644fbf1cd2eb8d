package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.DemoHandlers;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.topics.TopicSpec;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tasks pinned to a node, end to end on a real broker: a served node runs them on the worker with
 * the label; a pin to a node nobody declared is answered at once and never holds up the stream
 * thread (it used to block it on metadata for 60 s, and every other site of the thread with it); a
 * declared node nobody serves fails unserved at schedule-to-start.
 */
class NodeAffinityIT {

    private static final String QUEUE = "pinned";
    private static LocalCluster cluster;
    private static DispatchClient client;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of(QUEUE));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            short rf = TopicLayout.defaults().replicationFactor();
            new TopicCreator(admin).create(List.of(new TopicSpec(BatonTopics.tasks(QUEUE, "gpu"), 3, rf, Map.of()),
                    new TopicSpec(BatonTopics.tasks(QUEUE, "idle"), 3, rf, Map.of())));
        }
        WorkerOptions.Builder plain = WorkerOptions.builder().workerId("plain").queues(QUEUE).maxConcurrent(4);
        WorkerOptions.Builder gpu = WorkerOptions.builder().workerId("gpu-box").queues(QUEUE).nodeLabels("gpu").maxConcurrent(4);
        DemoHandlers.all().forEach((type, handler) -> {
            plain.handler(type, handler);
            gpu.handler(type, handler);
        });
        cluster.worker(plain);
        cluster.worker(gpu);
        client = cluster.client("pins", o -> { });
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static ActivityRequest.Builder echo(String workflow, String node) {
        return ActivityRequest.builder().site("pins", workflow, "1").queue(QUEUE).activityType("echo").node(node)
                .input(workflow.getBytes(UTF_8), "text/plain");
    }

    @Test
    void shouldRunAPinnedTaskOnTheWorkerWithTheNodeLabel() throws Exception {
        for (int i = 0; i < 5; i++) {
            ActivityOutcome o = client.dispatch(echo("gpu-" + i, "gpu").build()).get(60, TimeUnit.SECONDS);
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(o.workerId()).isEqualTo("gpu-box");
        }
    }

    @Test
    void shouldAnswerAPinToAnUndeclaredNodeAtOnceAndKeepServingEveryoneElse() throws Exception {
        CompletableFuture<ActivityOutcome> pinned = client.dispatch(echo("nowhere", "nowhere").build());
        CompletableFuture<ActivityOutcome> ordinary = client.dispatch(echo("ordinary", null).build());

        ActivityOutcome refused = pinned.get(30, TimeUnit.SECONDS);
        assertThat(refused.completed()).isFalse();
        assertThat(refused.reason()).startsWith("unavailable: unknown node 'nowhere' on queue 'pinned'");
        assertThat(ordinary.get(30, TimeUnit.SECONDS).completed()).as("the next dispatch is not held up").isTrue();
    }

    @Test
    void shouldFailAPinNobodyServesUnservedAtScheduleToStart() throws Exception {
        ActivityOutcome o = client.dispatch(echo("idle", "idle").scheduleToStart(Duration.ofSeconds(2)).build()).get(60, TimeUnit.SECONDS);

        assertThat(o.completed()).isFalse();
        assertThat(o.reason()).startsWith("unavailable: unserved: no live worker with node 'idle' on queue 'pinned'");
    }
}
