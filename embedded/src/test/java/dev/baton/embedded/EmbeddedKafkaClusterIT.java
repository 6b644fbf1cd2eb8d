package dev.baton.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Three KRaft nodes: the replicated defaults and a leader killed and brought back, in this JVM; as
 * separate processes, kill -9 of a leader and of a transaction coordinator mid-transaction, a
 * controlled shutdown and a node frozen past its session timeout.
 */
class EmbeddedKafkaClusterIT {

    private static final String TOPIC = "it.replicated";

    @Test
    void shouldReplicateThreeWaysAndSurviveTheKillOfALeader() throws Exception {
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).build().start();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            // -1 replicas: the broker default, as `baton topics create` asks for now.
            admin.createTopics(Set.of(new NewTopic(TOPIC, Optional.of(2), Optional.empty()))).all().get();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
                    assertThat(kafka.inSyncReplicas(TOPIC)).containsEntry(0, List.of(1, 2, 3)).containsEntry(1, List.of(1, 2, 3)));
            assertThat(admin.describeConfigs(Set.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC))).all().get().values().iterator()
                    .next().get("min.insync.replicas").value()).isEqualTo("2");

            try (KafkaProducer<String, String> producer = producer(kafka.bootstrapServers())) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "before")).get();
                producer.commitTransaction();
                assertThat(kafka.inSyncReplicas("__transaction_state").values()).as("transaction state is replicated too")
                        .allSatisfy(isr -> assertThat(isr).hasSize(3));

                int victim = kafka.leaderOf(TOPIC, 0).orElseThrow();
                kafka.kill(victim);
                assertThat(kafka.isRunning(victim)).isFalse();
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> kafka.leaderOf(TOPIC, 0).orElse(victim) != victim);
                assertThat(kafka.nodeLeadingMost(TOPIC)).isNotEqualTo(victim);

                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "while one node is down")).get();
                producer.commitTransaction();

                kafka.restart(victim);
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kafka.inSyncReplicas(TOPIC).get(0).size() == 3);
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "after")).get();
                producer.commitTransaction();
            }
            assertThat(consume(kafka.bootstrapServers(), 3)).containsExactly("before", "while one node is down", "after");
        }
    }

    @Test
    void shouldSurviveKill9ControlledShutdownAndPauseOfSeparateProcesses() throws Exception {
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).separateProcesses().build().start();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            admin.createTopics(Set.of(new NewTopic(TOPIC, Optional.of(2), Optional.empty()))).all().get();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> kafka.inSyncReplicas(TOPIC).get(0).size() == 3);
            try (KafkaProducer<String, String> producer = producer(kafka.bootstrapServers())) {
                // kill -9 of the transaction coordinator with the transaction open: the commit still lands.
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "coordinator killed")).get();
                int coordinator = kafka.transactionCoordinatorOf("it.replicated");
                kafka.kill(coordinator);
                producer.commitTransaction();
                kafka.restart(coordinator);
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kafka.inSyncReplicas(TOPIC).get(0).size() == 3);

                // A controlled shutdown moves leadership off the node before it is gone.
                int leader = kafka.leaderOf(TOPIC, 0).orElseThrow();
                kafka.stop(leader);
                assertThat(kafka.leaderOf(TOPIC, 0).orElse(-1)).as("leader right after a controlled shutdown (-1: none)").isNotIn(leader, -1);
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "leader stopped")).get();
                producer.commitTransaction();
                kafka.restart(leader);
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kafka.inSyncReplicas(TOPIC).get(0).size() == 3);

                // Frozen past its session timeout, a leader is fenced and replaced; resumed, it rejoins.
                int frozen = kafka.leaderOf(TOPIC, 0).orElseThrow();
                Thread pause = new Thread(() -> {
                    try {
                        kafka.pause(frozen, Duration.ofSeconds(10));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                pause.start();
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> kafka.leaderOf(TOPIC, 0).orElse(frozen) != frozen);
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "leader frozen")).get();
                producer.commitTransaction();
                pause.join(Duration.ofSeconds(30).toMillis());
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> kafka.inSyncReplicas(TOPIC).get(0).size() == 3);
            }
            assertThat(consume(kafka.bootstrapServers(), 3)).containsExactly("coordinator killed", "leader stopped", "leader frozen");
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it.replicated");
        KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        producer.beginTransaction();
        return producer;
    }

    private static List<String> consume(String bootstrap, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.size() >= expected;
            });
        }
        return values;
    }
}
