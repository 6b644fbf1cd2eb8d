package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.schemas.SiteKey;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 23 (streams app scaled out and in), finding 1 made deterministic. What a thawed at-least-once zombie
 * instance does to the {@code sites} changelog ({@link Adv23xZombieInstanceIT}, which needs the freeze to land while the
 * zombie has work queued), done by hand: after a site resolved, the changelog gets once more the row it had while its
 * task was pending, as the zombie's producer sends it after the new owner's writes. A new instance restores the sites
 * from the changelog; a dispatch of attempt 2 then takes the site over. The attempt-1 caller, answered {@code completed},
 * must not be answered again.
 */
class Adv23xStaleChangelogRowIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String TOKEN_KEY = "YWR2MjN4LXN0YWxlLWNoYW5nZWxvZy1yb3ctdG9rZW4=";
    private static final String CHANGELOG = "baton-streams-sites-changelog";

    @Test
    void aRowWrittenAgainFromAnOlderStateIsNotRestored() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(1), List.of("q")));
        }
        List<String> config = List.of("processing.guarantee=at_least_once", "token.key=" + TOKEN_KEY, "num.standby.replicas=0",
                "hanging.transaction.check.ms=0");
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        clientConfig.put("baton.client.id", "adv23x-stale-row");
        SiteKey site = new SiteKey("stale", "wf-1", "1");
        BatonProcess a = BatonProcess.streamsApp(bootstrap, "adv23x-stale-a", TempDirs.create("adv23x-sa-"), config);
        BatonProcess c = null;
        try (Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(ClientConfigs.bootstrap(bootstrap)).workerId("adv23x-sw")
                     .queues("q").handler("echo", (ctx, input) -> input).build());
             DispatchClient client = DispatchClient.create(clientConfig, unmatched::add)) {
            ActivityOutcome first = client.dispatch(request(site, 1)).get(90, TimeUnit.SECONDS);
            assertThat(first.completed()).as("first answer: %s", first).isTrue();

            // The row's first version (the run pending), as the changelog holds it, sent again after the rest.
            List<ConsumerRecord<byte[], byte[]>> rows = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                rows.clear();
                rows.addAll(changelog(bootstrap, site));
                return rows.size() >= 2;
            });
            ConsumerRecord<byte[], byte[]> pending = rows.get(0);
            try (KafkaProducer<byte[], byte[]> zombie = new KafkaProducer<>(ClientConfigs.bootstrap(bootstrap), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                zombie.send(new ProducerRecord<>(CHANGELOG, pending.partition(), pending.key(), pending.value())).get(30, TimeUnit.SECONDS);
            }
            a.kill9();

            c = BatonProcess.streamsApp(bootstrap, "adv23x-stale-c", TempDirs.create("adv23x-sc-"), config);
            CompletableFuture<ActivityOutcome> takeover = client.dispatch(request(site, 2));
            ActivityOutcome second = takeover.get(90, TimeUnit.SECONDS);
            assertThat(second.completed()).as("attempt 2: %s", second).isTrue();
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> true);
            assertThat(unmatched.stream().filter(o -> !o.unmatched()).toList())
                    .as("the attempt-1 caller, answered %s, answered again", first).isEmpty();
            InvariantChecker.Report audit = InvariantChecker.check(bootstrap, Set.of(first.requestId(), second.requestId()), true);
            assertThat(audit.violations()).as(audit.toString()).isEmpty();
        } finally {
            a.close();
            if (c != null) {
                c.close();
            }
        }
    }

    private static ActivityRequest request(SiteKey site, int attempt) {
        return ActivityRequest.builder().site(site).attempt(attempt).queue("q").activityType("echo")
                .input("in".getBytes(UTF_8), "text/plain").build();
    }

    /** Every changelog record of {@code site}, in order. */
    private static List<ConsumerRecord<byte[], byte[]>> changelog(String bootstrap, SiteKey site) {
        Map<String, Object> props = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(CHANGELOG, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (Arrays.equals(r.key(), site.toBytes()) && r.value() != null) {
                        found.add(r);
                    }
                }
            }
        }
        return found;
    }
}
