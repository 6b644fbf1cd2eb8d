package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * A client whose partitioner is not Kafka's murmur2 (here librdkafka's default, CRC32 of the key)
 * writes a dispatch to a partition whose stream task does not own its site. The caller must get an
 * answer that names the partitioner to use, not wait forever.
 */
class WrongPartitionIT {

    private static final int PARTITIONS = 3;

    /** librdkafka's {@code consistent}: CRC32 of the key modulo the partition count. */
    public static final class Crc32Partitioner implements Partitioner {
        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
            return crc32Partition(keyBytes);
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    static int crc32Partition(byte[] key) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return (int) (crc.getValue() % PARTITIONS);
    }

    @Test
    void shouldAnswerADispatchThatANonDefaultPartitionerPutOnTheWrongPartition() throws Exception {
        SiteKey site = misplacedSite();
        try (LocalCluster cluster = LocalCluster.start(PARTITIONS, List.of("payments"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            List<ActivityOutcome> answered = new CopyOnWriteArrayList<>();
            cluster.client("misrouted-caller", answered::add);
            DispatchCommand command = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(site.toRef())
                    .setRequestId("misrouted-1").setReplyKey("misrouted-caller").setAttempt(1).setIdempotencyKey("idem-1")
                    .setQueue("payments").setActivityType("echo")
                    .setInput(new Payload(ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8)), "text/plain"))
                    .setRequestedAtMillis(System.currentTimeMillis()).build();

            Map<String, Object> config = new HashMap<>(cluster.clientConfig());
            config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, Crc32Partitioner.class.getName());
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
                int written = producer.send(new ProducerRecord<>(BatonTopics.DISPATCH, site.toBytes(),
                        EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, command))).get(30, TimeUnit.SECONDS).partition();
                assertThat(written).as("the custom partitioner chose the partition").isEqualTo(crc32Partition(site.toBytes()));
            }

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(answered).singleElement().satisfies(o -> {
                assertThat(o.requestId()).isEqualTo("misrouted-1");
                assertThat(o.completed()).isFalse();
                assertThat(o.reason()).startsWith("terminal: invalid dispatch: wrong partition: written to partition "
                        + crc32Partition(site.toBytes()) + " of baton.dispatch, but its key maps to partition " + murmur2Partition(site.toBytes()))
                        .contains("partitioner=murmur2_random");
            }));
        }
    }

    /** A site whose CRC32 partition is not its murmur2 one (about two keys in three). */
    private static SiteKey misplacedSite() {
        for (int i = 0; ; i++) {
            SiteKey site = new SiteKey("misrouted", "order-" + i, "charge");
            if (crc32Partition(site.toBytes()) != murmur2Partition(site.toBytes())) {
                return site;
            }
        }
    }

    private static int murmur2Partition(byte[] key) {
        return Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
    }
}
