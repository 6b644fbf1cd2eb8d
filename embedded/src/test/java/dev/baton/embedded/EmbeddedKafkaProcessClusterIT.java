package dev.baton.embedded;

import static dev.baton.embedded.EmbeddedKafkaClusterIT.TOPIC;
import static dev.baton.embedded.EmbeddedKafkaClusterIT.consume;
import static dev.baton.embedded.EmbeddedKafkaClusterIT.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Three KRaft nodes as separate processes: kill -9 of a transaction coordinator mid-transaction, a controlled
 * shutdown and a node frozen past its session timeout. A class of its own so that it runs beside
 * {@link EmbeddedKafkaClusterIT} (the module's ITs run in two forks).
 */
class EmbeddedKafkaProcessClusterIT {

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
}
