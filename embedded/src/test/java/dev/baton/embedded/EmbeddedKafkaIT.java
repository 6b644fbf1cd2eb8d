package dev.baton.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

    @TempDir
    Path dir;

    @Test
    void shouldKeepProducedRecordsAcrossARestartOnTheSameDataDir() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).build().start()) {
            createTopic(kafka.bootstrapServers(), "it.restart");
            produce(kafka.bootstrapServers(), "it.restart", List.of("one", "two", "three"));
            assertThat(consumeAll(kafka.bootstrapServers(), "it.restart", 3)).containsExactly("one", "two", "three");

            kafka.restart();

            produce(kafka.bootstrapServers(), "it.restart", List.of("four"));
            assertThat(consumeAll(kafka.bootstrapServers(), "it.restart", 4)).containsExactly("one", "two", "three", "four");
        }
        assertThat(dir.resolve("kafka")).as("a given data dir is the caller's and survives close").exists();
    }

    @Test
    void shouldStartOnOtherPortsWhenItsChosenPortIsTakenBeforeItBindsIt() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build();
        int chosen = Integer.parseInt(kafka.bootstrapServers().substring(kafka.bootstrapServers().lastIndexOf(':') + 1));
        try (ServerSocket thief = new ServerSocket(chosen, 50, InetAddress.getByName("127.0.0.1"))) {
            kafka.start();
        }
        try (kafka) {
            assertThat(kafka.bootstrapServers()).doesNotEndWith(":" + chosen);
            createTopic(kafka.bootstrapServers(), "it.moved");
            produce(kafka.bootstrapServers(), "it.moved", List.of("one"));
            assertThat(consumeAll(kafka.bootstrapServers(), "it.moved", 1)).containsExactly("one");
        }
    }

    @Test
    void shouldDeleteItsOwnTempDirOnClose() {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
        Path data = kafka.dataDir();
        assertThat(Files.exists(data)).isTrue();
        kafka.close();
        assertThat(Files.exists(data)).isFalse();
    }

    @Test
    void shouldRefuseToAutoCreateTopics() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
             KafkaConsumer<String, String> consumer = consumer(kafka.bootstrapServers())) {
            consumer.partitionsFor("it.never-declared", Duration.ofSeconds(2));
            assertThat(admin.listTopics().names().get()).doesNotContain("it.never-declared");
        }
    }

    private static void createTopic(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(Set.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private static void produce(String bootstrap, String topic, List<String> values) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get();
            }
        }
    }

    private static List<String> consumeAll(String bootstrap, String topic, int expected) {
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
            return values;
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "true");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }
}
