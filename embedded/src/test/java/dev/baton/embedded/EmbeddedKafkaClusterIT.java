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
 * Three KRaft nodes in this JVM: the replicated defaults and a leader killed and brought back. The same
 * as separate processes: {@link EmbeddedKafkaProcessClusterIT}.
 */
class EmbeddedKafkaClusterIT {

    static final String TOPIC = "it.replicated";

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

    static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it.replicated");
        KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        producer.beginTransaction();
        return producer;
    }

    static List<String> consume(String bootstrap, int expected) {
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
