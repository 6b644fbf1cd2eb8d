package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * adv23c: {@code baton.results} with more partitions than when a client last read it. Results keyed
 * by a client id move to {@code murmur2(id) mod P'} once the writer sees the new count; the client,
 * restarted, reads that partition, where its group had never committed a position, so it started at
 * the end and lost every outcome written there while it was down (DESIGN §4: every accepted request
 * id answered; §6: a restarted client receives what it missed).
 */
class Adv23cResultsPartitionsIT {

    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        // the streams app's producer learns a new partition count within half a second, not metadata.max.age.ms's 5 minutes
        cluster = LocalCluster.start(3, List.of("adv23c-parts"), Map.of("producer.metadata.max.age.ms", 500));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldHandARestartedClientTheOutcomesWrittenToItsNewPartition() throws Exception {
        String client = clientIdMovedBy(3, 4);
        List<ActivityOutcome> seen = new CopyOnWriteArrayList<>();
        cluster.client(client, seen::add).close(); // it has read (and committed) its partition of 3

        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createPartitions(Map.of(BatonTopics.RESULTS, NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
        }
        // while it is down, an outcome for it is written where a writer that knows 4 partitions puts it
        RecordMetadata written = publishOutcome(client, "req-after-resize");
        assertThat(written.partition()).isEqualTo(BatonTopics.resultsPartition(client, 4)).isNotEqualTo(BatonTopics.resultsPartition(client, 3));

        try (DispatchClient restarted = cluster.client(client, seen::add)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(seen).extracting(ActivityOutcome::requestId).contains("req-after-resize"));
        }
    }

    /**
     * The partitions grow while the client runs: once the streams app writes to the new partition, a client still reading
     * the old one never sees its outcomes. It must not leave its caller waiting for good: it stops its listener (the
     * futures fail, saying why), and a client restarted under its id receives the outcome.
     */
    @Test
    void shouldNotLeaveALiveClientWaitingWhenItsResultsMove() throws Exception {
        int before;
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            before = admin.describeTopics(List.of(BatonTopics.RESULTS)).allTopicNames().get().get(BatonTopics.RESULTS).partitions().size();
        }
        int after = before + 2;
        String client = clientIdMovedBy(before, after);
        List<ActivityOutcome> seen = new CopyOnWriteArrayList<>();
        java.util.concurrent.CompletableFuture<ActivityOutcome> future;
        try (DispatchClient live = cluster.client(client, seen::add, Map.of("metadata.max.age.ms", 500))) {
            future = live.dispatch(dev.baton.dispatcher.ActivityRequest.builder().site("adv23c", "wf-live-resize", "1")
                    .queue("adv23c-parts").activityType("echo").input("moved".getBytes(UTF_8), "text/plain").build());
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                admin.createPartitions(Map.of(BatonTopics.RESULTS, NewPartitions.increaseTo(after))).all().get(30, TimeUnit.SECONDS);
            }
            cluster.worker(dev.baton.worker.WorkerOptions.builder().workerId("adv23c-resize-echo").queues("adv23c-parts")
                    .handler("echo", (ctx, input) -> input));
            await("the live client's caller is answered or told").atMost(Duration.ofSeconds(60)).until(future::isDone);
        }
        if (future.isCompletedExceptionally()) {
            assertThat(future).failsWithin(Duration.ZERO).withThrowableThat().havingCause()
                    .isInstanceOf(dev.baton.dispatcher.ResultListenerStoppedException.class).withMessageContaining("partitions");
            try (DispatchClient restarted = cluster.client(client, seen::add)) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(seen).anyMatch(o -> o.site().workflowId().equals("wf-live-resize") && o.completed()));
            }
        }
    }

    private static String clientIdMovedBy(int before, int after) {
        for (int i = 0; ; i++) {
            String id = "adv23c-resize-" + i;
            if (BatonTopics.resultsPartition(id, before) != BatonTopics.resultsPartition(id, after)) {
                return id;
            }
        }
    }

    private static RecordMetadata publishOutcome(String clientId, String requestId) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", cluster.clientConfig());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(ClientConfigs.durableProducer(cluster.clientConfig()),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            Outcome outcome = Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(new SiteRef("adv23c", "wf-resize", "1"))
                    .setRequestId(requestId).setReplyKey(clientId).setAttempt(1).setAtMillis(System.currentTimeMillis()).build();
            return producer.send(new ProducerRecord<>(BatonTopics.RESULTS, clientId.getBytes(UTF_8),
                    EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, outcome))).get(30, TimeUnit.SECONDS);
        }
    }
}
