package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafkaCluster;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 23 (streams app scaled out and in), finding 1. {@code token.key} must be "the same on every instance"
 * (README, StreamsAppConfig's doc): at-least-once relies on it so that a dispatch reprocessed after a crash that lost its
 * row's write re-creates the secret of the tokens already delivered. Nothing checks it. Two instances of one application
 * id with different keys (a rolling key rotation, or one instance's config file out of date) break "at most one distinct
 * outcome per request id" (DESIGN §4) as soon as the owner of a site dies with the row's changelog write undelivered:
 * <ol>
 *   <li>instance A (key 1, at-least-once) owns the site; the broker leading its {@code sites} changelog partition is down
 *       (replication factor 1 for the app's internal topics, a legal setting), so the row's writes wait in A's producer
 *       while the task, the outcome and history (other brokers) are delivered at once, as at-least-once promises;</li>
 *   <li>the worker runs the task with A's token and the caller is answered {@code completed "run-1"};</li>
 *   <li>A is killed (kill -9) before its changelog writes or its input offsets reach the broker; the broker comes back;</li>
 *   <li>instance B of the same application id (key 2) takes the task over, finds no row, reads the dispatch again and
 *       derives another secret: the delivered completion is refused as forged, the task is published again under a new
 *       token, runs again, and the same request id is answered a second time, {@code completed "run-2"}.</li>
 * </ol>
 * The same test with one key for both instances (kept here) holds: B re-derives A's secret and the first run's completion
 * counts. With two keys B now refuses to start (the instances compare a fingerprint of the key:
 * {@code TokenKeyAgreementIT}), so the case with two keys, which failed as above before, is gone from this class.
 */
class Adv23xTokenKeyMismatchIT {

    private static final String KEY_1 = "YWR2MjN4LXRva2VuLWtleS1vbmUtMzItYnl0ZXMtISE=";
    private static final String APP_ID = "baton-streams";
    private static final String SITES_CHANGELOG = APP_ID + "-sites-changelog";

    @Test
    void oneKeyOnEveryInstanceKeepsOneOutcome() throws Exception {
        run(KEY_1, KEY_1);
    }

    private void run(String keyA, String keyB) throws Exception {
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).build().start()) {
            String bootstrap = kafka.bootstrapServers();
            int victim;
            try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
                new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(1), List.of("q")));
                // the app's group, made now (an offset of 0, where it starts anyway) to learn its coordinator
                admin.alterConsumerGroupOffsets(APP_ID, Map.of(new TopicPartition(BatonTopics.DISPATCH, 0), new OffsetAndMetadata(0))).all().get();
                int coordinator = admin.describeConsumerGroups(List.of(APP_ID)).all().get().get(APP_ID).coordinator().id();
                victim = kafka.nodeIds().stream().filter(n -> n != coordinator).findFirst().orElseThrow();
                // The app's sites changelog on one broker only (replication.factor=1 for internal topics, pre-created here to
                // pick the broker): the outage of that broker holds back the row's writes and nothing else.
                admin.createTopics(List.of(new NewTopic(SITES_CHANGELOG, Map.of(0, List.of(victim)))
                        .configs(Map.of("cleanup.policy", "compact", "min.insync.replicas", "1")))).all().get();
            }
            List<String> alo = List.of("processing.guarantee=at_least_once", "num.standby.replicas=0", "hanging.transaction.check.ms=0",
                    "replication.factor=1");
            List<String> configA = new ArrayList<>(alo);
            configA.add("token.key=" + keyA);
            configA.add("commit.interval.ms=600000"); // nothing committed before the kill
            BatonProcess a = BatonProcess.streamsApp(bootstrap, "adv23x-key-a", TempDirs.create("adv23x-a-"), configA);
            Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
            clientConfig.put("baton.client.id", "adv23x-keys");
            try (Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(ClientConfigs.bootstrap(bootstrap)).workerId("adv23x-w")
                         .queues("q").handler("charge", (ctx, input) -> ("run-" + runs.incrementAndGet()).getBytes(UTF_8)).build());
                 DispatchClient client = DispatchClient.create(clientConfig, unmatched::add)) {
                kafka.kill(victim);
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> kafka.leaderOf(SITES_CHANGELOG, 0).isEmpty());

                CompletableFuture<ActivityOutcome> outcome = client.dispatch(ActivityRequest.builder().site("shop", "order-23", "charge")
                        .queue("q").activityType("charge").input("in".getBytes(UTF_8), "text/plain").build());
                ActivityOutcome first = outcome.get(90, TimeUnit.SECONDS);
                assertThat(first.completed()).as("first answer: %s", first).isTrue();
                assertThat(first.outputAsString()).isEqualTo("run-1");
                a.kill9();
                kafka.restart(victim);
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kafka.leaderOf(SITES_CHANGELOG, 0).isPresent());

                List<String> configB = new ArrayList<>(alo);
                configB.add("token.key=" + keyB);
                try (BatonProcess b = BatonProcess.streamsApp(bootstrap, "adv23x-key-b", TempDirs.create("adv23x-b-"), configB)) {
                    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                            .until(() -> caughtUp(bootstrap, BatonTopics.DISPATCH) && caughtUp(bootstrap, BatonTopics.WORKER_EVENTS));
                    // Whatever B published again has been run and reported, and B read the reports.
                    await().atMost(Duration.ofSeconds(90)).during(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(250))
                            .until(() -> caughtUp(bootstrap, BatonTopics.WORKER_EVENTS) && caughtUp(bootstrap, "baton.tasks.q", "baton-worker-q"));
                    List<ActivityOutcome> second = unmatched.stream().filter(o -> o.requestId().equals(first.requestId()) && !o.unmatched()).toList();
                    assertThat(second).as("a second, different outcome for request %s (answered %s first); runs: %d", first.requestId(),
                            first.outputAsString(), runs.get()).isEmpty();
                    InvariantChecker.Report audit = InvariantChecker.check(bootstrap, Set.of(first.requestId()), true);
                    assertThat(audit.violations()).as(audit.toString()).isEmpty();
                }
            } finally {
                a.close();
            }
        }
    }

    private static boolean caughtUp(String bootstrap, String topic) throws Exception {
        return caughtUp(bootstrap, topic, APP_ID);
    }

    /** Whether {@code group} committed its way to the end of every partition of {@code topic}. */
    private static boolean caughtUp(String bootstrap, String topic, String group) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (var p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
                ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            }
            for (var end : admin.listOffsets(ends).all().get().entrySet()) {
                OffsetAndMetadata c = committed.get(end.getKey());
                if (end.getValue().offset() > Optional.ofNullable(c).map(OffsetAndMetadata::offset).orElse(0L)) {
                    return false;
                }
            }
            return true;
        }
    }
}
