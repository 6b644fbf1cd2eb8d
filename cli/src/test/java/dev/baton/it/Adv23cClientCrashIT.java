package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * adv23c: DESIGN §6 — results that match no pending future because the process restarted go to the
 * restarted client's UnmatchedResultHandler. A client that had never committed a results position
 * (a new {@code baton.client.id} whose first outcomes had not arrived yet) and was killed -9 left its
 * group with no committed offset; restarted, it started at the end of its partition and never saw
 * the outcomes written while it was down: accepted request ids went unanswered.
 */
class Adv23cClientCrashIT {

    private static final String QUEUE = "adv23c-crash";
    private static final String CLIENT = "adv23c-crash-client";

    @TempDir
    static Path dir;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of(QUEUE));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldHandTheOutcomesOfAKilledFirstIncarnationToItsSuccessor() throws Exception {
        Path config = dir.resolve("client.properties");
        Properties p = new Properties();
        p.put("baton.client.id", CLIENT);
        try (Writer w = Files.newBufferedWriter(config)) {
            p.store(w, "adv23c");
        }
        long resultsBefore = endOffsetSum(BatonTopics.RESULTS);
        long dispatchesBefore = endOffsetSum(BatonTopics.DISPATCH);
        // a first incarnation dispatches an activity nobody serves yet, waits for it, and is killed -9
        try (BatonProcess first = BatonProcess.start("adv23c-dispatcher", "effective configuration", Duration.ofSeconds(60),
                List.of("dispatch", "--bootstrap-servers", cluster.bootstrapServers(), "--config", config.toString(), "--queue", QUEUE,
                        "--type", "echo", "--workflow", "wf-crash", "--input", "hello", "--timeout-s", "600"))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> endOffsetSum(BatonTopics.DISPATCH) > dispatchesBefore);
            first.kill9();
        }
        // the activity runs while the client is down; its outcome is written, keyed by the client's id
        cluster.worker(WorkerOptions.builder().workerId("adv23c-echo").queues(QUEUE).handler("echo", (ctx, input) -> input));
        await().atMost(Duration.ofSeconds(60)).until(() -> endOffsetSum(BatonTopics.RESULTS) > resultsBefore);

        // the client comes back under its id: the outcome must reach it. Its create waits for the killed one's group session
        // to end (10 s on the embedded broker, 45 s by Kafka's default; h/adv24b, one live client per id): ClientIdRestartIT covers that wait on a short session.
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        try (DispatchClient restarted = cluster.client(CLIENT, unmatched::add)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(unmatched)
                    .as("the outcome of the killed incarnation's dispatch").anyMatch(o -> o.site().workflowId().equals("wf-crash")));
        }
        assertThat(unmatched).filteredOn(o -> o.site().workflowId().equals("wf-crash")).hasSize(1)
                .allMatch(ActivityOutcome::completed);
        assertThat(new String(unmatched.get(0).output(), UTF_8)).isEqualTo("hello");
    }

    private static long endOffsetSum(String topic) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> specs = new java.util.HashMap<>();
            for (int i = 0; i < partitions; i++) {
                specs.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            return admin.listOffsets(specs).all().get().values().stream().mapToLong(r -> r.offset()).sum();
        }
    }
}
