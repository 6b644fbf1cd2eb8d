package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafkaCluster;

/**
 * An adversary of the {@link FetchReader} on a three-node cluster (issue 30, h/adv40). The contract: a partition
 * whose leader changes between (and during) a reader's ranges is read on from the new leader, the same records the
 * consumer hands out, within the stall limit.
 */
@Timeout(400)
class Adv40FetchReaderLeaderIT {

    private static final String TOPIC = "adv40-leader";

    @Test
    void theLeaderCrashesBetweenConsecutiveRanges() throws Exception {
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).build().start();
             Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();
            Map<String, Object> p = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.BATCH_SIZE_CONFIG, 2_048, ProducerConfig.LINGER_MS_CONFIG, 5));
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < 3_000; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                producer.flush();
            }
            Map<String, Object> client = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers(),
                    "max.partition.fetch.bytes", 3_000, "fetch.max.bytes", 5_000));
            Map<String, Object> config = ScanConsumers.readerConfig(client);
            List<String> all = viaConsumer(config, new OffsetRange(TOPIC, 0, 0, 3_000));
            try (FetchReader reader = new FetchReader(config, Duration.ofSeconds(90))) {
                List<String> got = new ArrayList<>(viaReader(reader, new OffsetRange(TOPIC, 0, 0, 1_000)));
                int leader = kafka.leaderOf(TOPIC, 0).orElseThrow();
                kafka.kill(leader);
                Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> kafka.leaderOf(TOPIC, 0).isPresent() && kafka.leaderOf(TOPIC, 0).getAsInt() != leader);
                assertNotEquals(leader, kafka.leaderOf(TOPIC, 0).orElseThrow());
                got.addAll(viaReader(reader, new OffsetRange(TOPIC, 0, 1_000, 3_000)));
                assertEquals(all, got, "consecutive ranges across the old leader's crash");
                assertEquals(all.subList(500, 2_500), viaReader(reader, new OffsetRange(TOPIC, 0, 500, 2_500)), "a range sought after the crash");
            }
        }
    }

    private static List<String> viaReader(FetchReader reader, OffsetRange r) {
        List<String> out = new ArrayList<>();
        reader.scan(r, v -> out.add(v.offset() + ":" + text(v.key()) + "=" + text(v.value())), () -> false);
        return out;
    }

    private static List<String> viaConsumer(Map<String, Object> config, OffsetRange r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<ByteBuffer, ByteBuffer> consumer = new KafkaConsumer<>(config, new ByteBufferDeserializer(), new ByteBufferDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, r.from());
            while (consumer.position(tp) < r.to()) {
                for (ConsumerRecord<ByteBuffer, ByteBuffer> c : consumer.poll(Duration.ofMillis(100))) {
                    if (c.offset() < r.to()) {
                        out.add(c.offset() + ":" + text(c.key()) + "=" + text(c.value()));
                    }
                }
            }
        }
        return out;
    }

    private static String text(ByteBuffer b) {
        return b == null ? "null" : StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }
}
