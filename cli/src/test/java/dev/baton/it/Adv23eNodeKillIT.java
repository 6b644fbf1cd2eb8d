package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.LocalCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 23: real {@code baton engine-node} processes killed with SIGKILL mid-job, one of them started again
 * under the same node id while the job runs; the job's answer must be the plain fold's, or a clear error, never a wrong
 * answer or a hang.
 */
class Adv23eNodeKillIT {

    private static final String TOPIC = "adv23e-kill-source";
    private static LocalCluster cluster;
    private static DispatchClient client;
    private static final Map<Long, List<Long>> expected = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(6, List.of(EngineNode.QUEUE));
        client = cluster.client("adv23e-kill-jobs", o -> { });
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(TOPIC, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        Map<Long, long[]> sums = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (long i = 0; i < 400_000; i++) {
                long key = (i * 7919) % 4_001;
                sends.add(p.send(new ProducerRecord<>(TOPIC, bytes(key), bytes(i))));
                long[] acc = sums.computeIfAbsent(key, k -> new long[2]);
                acc[0] += i;
                acc[1]++;
            }
            for (Future<?> f : sends) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        sums.forEach((k, v) -> expected.put(k, List.of(v[0], v[1])));
        assertThat(plainCount()).isEqualTo(400_000L);
    }

    private static long plainCount() {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cluster.clientConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = c.partitionsFor(TOPIC).stream().map(p -> new TopicPartition(TOPIC, p.partition())).toList();
            return c.endOffsets(tps).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        cluster.close();
    }


    private static BatonProcess node(String id) {
        return BatonProcess.start(id, "engine node " + id, Duration.ofSeconds(90), List.of("engine-node", "--bootstrap-servers",
                cluster.bootstrapServers(), "--node-id", id, "--threads", "1"));
    }

    private static Map<Long, List<Long>> rows(DistributedGroupBy.Result r) {
        Map<Long, List<Long>> out = new TreeMap<>();
        r.rows().forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }

    private static CompletableFuture<DistributedGroupBy.Result> runAsync(String job) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofMinutes(4)).run(job, TOPIC, 10_000, 3);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void aNodeKilledMidScanAndStartedAgainUnderItsIdLeavesTheAnswerRight() throws Exception {
        BatonProcess a = node("kill-a");
        try (BatonProcess b = node("kill-b"); Admin admin = Admin.create(cluster.clientConfig())) {
            CompletableFuture<DistributedGroupBy.Result> result = runAsync("kill-scan");
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.listTopics().names().get().contains("baton.exchange.kill-scan"));
            // Some partials of the first splits are in the exchange (past the job's secret, its first record): scans are under way.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> result.isDone()
                    || exchangeRecords(admin, "baton.exchange.kill-scan") > 1);
            assertThat(result).as("the job still runs").isNotDone();
            a.kill9();
            try (BatonProcess again = node("kill-a")) {
                assertThat(rows(result.get(240, TimeUnit.SECONDS))).isEqualTo(expected);
            }
        } finally {
            a.close();
        }
    }

    @Test
    void bothNodesKilledAfterTheScansAndOneStartedAgainLeavesTheAnswerRight() throws Exception {
        BatonProcess a = node("both-a");
        BatonProcess b = node("both-b");
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            CompletableFuture<DistributedGroupBy.Result> result = runAsync("kill-both");
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.listTopics().names().get().contains("baton.exchange.kill-both"));
            // Some scans' partials are in (40 splits of ~3,700 groups each, spread over 3 partitions), some scans are running.
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50)).until(() -> result.isDone()
                    || exchangeRecords(admin, "baton.exchange.kill-both") > 3 * 3_000);
            a.kill9();
            b.kill9();
            assertThat(result).isNotDone();
            try (BatonProcess again = node("both-a")) {
                assertThat(rows(result.get(240, TimeUnit.SECONDS))).isEqualTo(expected);
            }
        } finally {
            a.close();
            b.close();
        }
    }

    private static long exchangeRecords(Admin admin, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cluster.clientConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = c.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            return c.endOffsets(tps).values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
