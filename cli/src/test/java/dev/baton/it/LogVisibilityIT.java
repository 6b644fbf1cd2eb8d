package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.testkit.LogVisibility;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The soak's diagnosis of stuck work, on a real broker: an open transaction and a lagging group are both named. */
class LogVisibilityIT {

    @Test
    void shouldNameTheOpenTransactionAndTheGroupBehindTheReadableEnd() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
             Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicPartition p0 = new TopicPartition("t", 0);
            TopicPartition p1 = new TopicPartition("t", 1);
            try (KafkaProducer<byte[], byte[]> plain = producer(kafka, null)) {
                for (int i = 0; i < 3; i++) {
                    plain.send(new ProducerRecord<>("t", 0, null, new byte[] {1})).get();
                    plain.send(new ProducerRecord<>("t", 1, null, new byte[] {1})).get();
                }
            }
            admin.alterConsumerGroupOffsets("g", Map.of(p0, new OffsetAndMetadata(3), p1, new OffsetAndMetadata(1))).all().get();

            assertThat(LogVisibility.report(admin, List.of("t"), List.of("g")))
                    .containsExactly("group g at t-1: committed 1, readable to 3, end 3");

            try (KafkaProducer<byte[], byte[]> transactional = producer(kafka, "open")) {
                transactional.initTransactions();
                transactional.beginTransaction();
                transactional.send(new ProducerRecord<>("t", 0, null, new byte[] {2})).get();
                transactional.flush();

                List<String> lines = LogVisibility.report(admin, List.of("t"), List.of("g"));

                assertThat(lines).hasSize(2);
                assertThat(lines.get(0)).startsWith("t-0: offsets 3..4 not readable by read_committed readers; open transactions: producer ")
                        .contains("since offset 3");
                assertThat(lines.get(1)).isEqualTo("group g at t-1: committed 1, readable to 3, end 3");
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(EmbeddedKafka kafka, String transactionalId) {
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers()));
        if (transactionalId != null) {
            config.put("transactional.id", transactionalId);
        }
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
