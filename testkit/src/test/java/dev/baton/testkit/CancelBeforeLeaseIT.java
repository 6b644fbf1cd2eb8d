package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.ClientIds;
import dev.baton.worker.LeaseMode;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A site cancelled while its task waits for a worker: no worker has leased it, so no worker can be
 * told to stop. A worker that reads the task afterwards must not run it (its completion would be
 * refused, but its side effects would have happened), in both lease modes.
 */
class CancelBeforeLeaseIT {

    private static final AtomicInteger INVOKED = new AtomicInteger();
    private static final List<ActivityOutcome> UNMATCHED = new CopyOnWriteArrayList<>();
    private static LocalCluster cluster;
    private static DispatchClient client;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(2, List.of("early-transactional", "early-plain"));
        client = cluster.client("early", UNMATCHED::add);
    }

    @AfterAll
    static void stop() {
        client.close();
        cluster.close();
    }

    @ParameterizedTest
    @EnumSource(LeaseMode.class)
    void shouldNeverStartATaskWhoseSiteWasCancelledBeforeAnyWorkerLeasedIt(LeaseMode mode) throws Exception {
        String queue = "early-" + mode.name().toLowerCase(java.util.Locale.ROOT);
        ActivityRequest request = ActivityRequest.builder().site("early", "wf-" + queue, "1").queue(queue).activityType("side-effect")
                .input("charge once".getBytes(UTF_8), "text/plain").build();
        CompletableFuture<ActivityOutcome> outcome = client.dispatch(request);
        client.cancel(request.site()).get(30, TimeUnit.SECONDS);
        assertThat(outcome.get(60, TimeUnit.SECONDS).reason()).startsWith("cancelled:");

        cluster.worker(WorkerOptions.builder().workerId("late-" + queue).queues(queue).leaseMode(mode)
                .handler("side-effect", (ctx, input) -> {
                    INVOKED.incrementAndGet();
                    return input;
                }));
        await().atMost(Duration.ofSeconds(90)).until(() -> consumedToTheEnd(queue));

        assertThat(INVOKED).as("the cancelled task's handler never ran").hasValue(0);
        assertThat(UNMATCHED).as("no second outcome (a refused completion relayed to the caller's outbox)").isEmpty();
    }

    /** Whether the queue's worker group has committed past every record of the queue's task topic (the task and its stop). */
    private static boolean consumedToTheEnd(String queue) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(cluster.clientConfig()))) {
            String topic = BatonTopics.tasks(queue);
            List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            Map<TopicPartition, Long> ends = admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                    .all().get().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(ClientIds.workerGroup(queue))
                    .partitionsToOffsetAndMetadata().get();
            // The streams app writes exactly-once: each of its writes ends with a transaction marker, which
            // takes the last offset and is never consumed. Past the last record is the end less that marker.
            return ends.entrySet().stream().allMatch(e -> e.getValue() == 0
                    || committed.get(e.getKey()) != null && committed.get(e.getKey()).offset() >= e.getValue() - 1);
        }
    }
}
