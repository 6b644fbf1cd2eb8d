package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.ClientIdInUseException;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafka;
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
 * One live client per {@code baton.client.id} (h/adv24b), across restarts: a client started again after its
 * predecessor closed starts at once; after its predecessor was killed -9 it is refused only until the broker ends the
 * dead one's group membership, and then starts and receives what the dead one waited for. The broker's consumer-group
 * session is shortened to {@value #SESSION_MS} ms (45 s by default) so the test does not wait 45 s.
 */
class ClientIdRestartIT {

    private static final String QUEUE = "adv24b-restart";
    /** Served only once the first client is dead, by a worker of its own: its outcome must wait for the successor. */
    private static final String QUEUE_KILLED = "adv24b-killed";
    private static final int SESSION_MS = 8_000;

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.builder()
                .brokerProperty("group.consumer.min.session.timeout.ms", "5000")
                .brokerProperty("group.consumer.session.timeout.ms", String.valueOf(SESSION_MS))
                .brokerProperty("group.consumer.min.heartbeat.interval.ms", "1000")
                .brokerProperty("group.consumer.heartbeat.interval.ms", "2000")
                .build().start();
        cluster = LocalCluster.on(kafka.bootstrapServers(), 3, List.of(QUEUE, QUEUE_KILLED), Map.of());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldStartAClientAtOnceAfterItsPredecessorWithTheSameIdClosed() throws Exception {
        cluster.worker(WorkerOptions.builder().workerId("adv24b-restart-echo").queues(QUEUE).handler("echo", (ctx, input) -> input));
        DispatchClient first = cluster.client("adv24b-closed", o -> { });
        first.close();

        long startedAt = System.nanoTime();
        // no wait allowed: a closed client left the group, nothing holds the id
        try (DispatchClient second = cluster.client("adv24b-closed", o -> { }, Map.of("client.id.wait.ms", "0"))) {
            assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).isLessThan(Duration.ofMillis(SESSION_MS));
            ActivityOutcome outcome = second.dispatch(ActivityRequest.builder().site("adv24b", "wf-closed", "1").queue(QUEUE)
                    .activityType("echo").input("again".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
            assertThat(outcome.completed()).as(outcome.reason()).isTrue();
        }
    }

    @Test
    void shouldStartAClientOnceItsKilledPredecessorsMembershipLapsedAndHandItTheOutcomes() throws Exception {
        String clientId = "adv24b-killed";
        Path config = dir.resolve("client.properties");
        Properties p = new Properties();
        p.put("baton.client.id", clientId);
        try (Writer w = Files.newBufferedWriter(config)) {
            p.store(w, "adv24b");
        }
        long dispatchesBefore = endOffsetSum(BatonTopics.DISPATCH);
        try (BatonProcess first = BatonProcess.start("adv24b-dispatcher", "effective configuration", Duration.ofSeconds(60),
                List.of("dispatch", "--bootstrap-servers", cluster.bootstrapServers(), "--config", config.toString(), "--queue", QUEUE_KILLED,
                        "--type", "slow-echo", "--workflow", "wf-killed", "--input", "hello", "--timeout-s", "600"))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> endOffsetSum(BatonTopics.DISPATCH) > dispatchesBefore);
            first.kill9();
        }

        // the dead client still holds the id until its session lapses: a start that may not wait is refused, saying when to retry
        assertThatThrownBy(() -> cluster.client(clientId, o -> { }, Map.of("client.id.wait.ms", "0")))
                .isInstanceOf(ClientIdInUseException.class)
                .hasMessageContaining("'" + clientId + "'")
                .hasMessageContaining("group.consumer.session.timeout.ms");

        cluster.worker(WorkerOptions.builder().workerId("adv24b-restart-slow").queues(QUEUE_KILLED).handler("slow-echo", (ctx, input) -> input));
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        Map<String, Object> waits = new HashMap<>();
        waits.put("client.id.wait.ms", "30000");
        long startedAt = System.nanoTime();
        try (DispatchClient restarted = cluster.client(clientId, unmatched::add, waits)) {
            assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).as("waited no longer than the dead one's session and a margin")
                    .isLessThan(Duration.ofMillis(SESSION_MS + 10_000));
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(unmatched)
                    .as("the outcome of the killed incarnation's dispatch").anyMatch(o -> o.site().workflowId().equals("wf-killed")));
        }
        assertThat(unmatched).filteredOn(o -> o.site().workflowId().equals("wf-killed")).hasSize(1).allMatch(ActivityOutcome::completed);
    }

    private static long endOffsetSum(String topic) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                specs.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            return admin.listOffsets(specs).all().get().values().stream().mapToLong(r -> r.offset()).sum();
        }
    }
}
