package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The fetch reader logs in as the client settings say (SASL/SCRAM here), as the consumer it replaces does. */
class FetchReaderSecurityIT {

    private static final String TOPIC = "secured-scan";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.builder().sasl("admin", "admin-secret").build().start();
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            new TopicCreator(admin).create(List.of(new TopicSpec(TOPIC, 1, (short) 1, Map.of())));
        }
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(kafka.adminConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 10; i++) {
                p.send(new ProducerRecord<>(TOPIC, 0, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
        }
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void shouldReadASecuredTopicWithTheClientsLogin() {
        List<Long> offsets = new ArrayList<>();
        try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(kafka.adminConfig()), Duration.ofSeconds(30))) {
            long handed = reader.scan(new OffsetRange(TOPIC, 0, 2, 9), r -> offsets.add(r.offset()), () -> false);

            assertThat(handed).isEqualTo(7);
        }
        assertThat(offsets).containsExactly(2L, 3L, 4L, 5L, 6L, 7L, 8L);
    }

    @Test
    void shouldFailAWrongPasswordByName() {
        try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(kafka.clientConfig("admin", "wrong")), Duration.ofSeconds(30))) {
            assertThatThrownBy(() -> reader.scan(new OffsetRange(TOPIC, 0, 0, 10), r -> { }, () -> false))
                    .isInstanceOf(AuthenticationException.class);
        }
    }
}
