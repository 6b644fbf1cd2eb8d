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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 22 (streams-app restarts), finding 1. An at-least-once streams app accepts a 5,000-byte dispatch and
 * its task runs; the process is killed (kill -9) before it commits its input, and the operator restarts it with a lowered
 * {@code max.payload.bytes} (1,000). The dispatch is read again: it is now "invalid", so its request id was answered
 * {@code terminal: invalid dispatch: input must be <= max.payload.bytes 1000}, although the site had accepted it and its
 * run goes on; the run's completion then answered the same request id {@code completed}. Two distinct outcomes for one
 * request id (DESIGN §4 safety), and the first one false. A request the site already knows is joined whatever today's
 * limit says: the limit guards what a new run would store, and a known request starts none.
 */
class Adv22sLoweredPayloadLimitIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String TOKEN_KEY = "YWR2MjJzLXJlc3RhcnRzLXRva2VuLWtleS0zMmJ5dGVz";

    @Test
    void aRequestAcceptedBeforeTheLimitWasLoweredIsNotRefusedWhenReadAgain() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        List<String> alo = List.of("processing.guarantee=at_least_once", "token.key=" + TOKEN_KEY, "num.standby.replicas=0",
                "hanging.transaction.check.ms=0",
                // no input offset is committed before the kill: the dispatch is read again after it
                "commit.interval.ms=600000");
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        clientConfig.put("baton.client.id", "adv22s-lowered");
        CompletableFuture<AsyncCompletion> running = new CompletableFuture<>();
        BatonProcess first = BatonProcess.streamsApp(bootstrap, "adv22s-first", TempDirs.create("adv22s-a-"), alo);
        try (Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(ClientConfigs.bootstrap(bootstrap)).workerId("adv22s-w")
                     .queues("q").handler("charge", (ctx, input) -> {
                         running.complete(ctx.completeLater());
                         return null;
                     }).build());
             DispatchClient client = DispatchClient.create(clientConfig, unmatched::add)) {
            CompletableFuture<ActivityOutcome> outcome = client.dispatch(ActivityRequest.builder().site("shop", "order-7", "charge")
                    .queue("q").activityType("charge").input(new byte[5_000], "application/octet-stream")
                    .heartbeat(Duration.ofSeconds(60)).build());
            AsyncCompletion run = running.get(90, TimeUnit.SECONDS);
            first.kill9();

            Path wiped = TempDirs.create("adv22s-b-");
            try (BatonProcess second = BatonProcess.streamsApp(bootstrap, "adv22s-second", wiped,
                    List.of(alo.get(0), alo.get(1), alo.get(2), alo.get(3), "max.payload.bytes=1000"))) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> caughtUp(bootstrap, BatonTopics.DISPATCH));
                run.complete("done".getBytes(UTF_8)).get(30, TimeUnit.SECONDS);
                ActivityOutcome answer = outcome.get(60, TimeUnit.SECONDS);
                assertThat(answer.completed()).as("the request was accepted and its run was going on, but it was answered: "
                        + answer.reason()).isTrue();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                        .until(() -> caughtUp(bootstrap, BatonTopics.WORKER_EVENTS));
                assertThat(unmatched).as("one distinct outcome per request id").isEmpty();
            }
        } finally {
            first.close();
        }
    }

    /** Whether the streams app committed its way to the end of every partition of {@code topic}. */
    private static boolean caughtUp(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("baton-streams").partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (var p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
                ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            }
            for (var end : admin.listOffsets(ends).all().get().entrySet()) {
                var c = committed.get(end.getKey());
                if (end.getValue().offset() > (c == null ? 0 : c.offset())) {
                    return false;
                }
            }
            return true;
        }
    }
}
