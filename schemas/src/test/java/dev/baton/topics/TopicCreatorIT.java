package dev.baton.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafkaExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TopicCreatorIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void shouldCreateEveryTopicOnceAndReportThemPresentTheSecondTime() throws Exception {
        try (Admin admin = admin()) {
            List<TopicSpec> specs = BatonTopics.all(TopicLayout.defaults().withPartitions(3), List.of("payments", "mail"));
            TopicCreator.Report first = new TopicCreator(admin).create(specs);
            assertThat(first.created()).contains(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, "baton.tasks.payments", "baton.tasks.mail");
            assertThat(first.ok()).isTrue();

            TopicCreator.Report second = new TopicCreator(admin).create(specs);
            assertThat(second.created()).isEmpty();
            assertThat(second.existing()).hasSameSizeAs(specs);

            Config workers = admin.describeConfigs(Set.of(new ConfigResource(ConfigResource.Type.TOPIC, BatonTopics.WORKERS)))
                    .all().get().values().iterator().next();
            assertThat(workers.get("cleanup.policy").value()).isEqualTo("compact");
            Config schemas = admin.describeConfigs(Set.of(new ConfigResource(ConfigResource.Type.TOPIC, BatonTopics.SCHEMAS)))
                    .all().get().values().iterator().next();
            assertThat(schemas.get("cleanup.policy").value()).isEqualTo("delete");
            assertThat(schemas.get("retention.ms").value()).isEqualTo("-1");
            assertThat(admin.describeTopics(Set.of(BatonTopics.SCHEMAS)).allTopicNames().get()
                    .get(BatonTopics.SCHEMAS).partitions()).hasSize(1);
        }
    }

    @Test
    void shouldReportAPartitionMismatchWithoutChangingTheTopic() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(Set.of(new NewTopic("baton.tasks.skewed", 2, (short) 1))).all().get();
            TopicCreator.Report report = new TopicCreator(admin).create(List.of(new TopicSpec("baton.tasks.skewed", 5, (short) 1, Map.of())));
            assertThat(report.ok()).isFalse();
            assertThat(report.mismatches()).singleElement().asString().contains("baton.tasks.skewed has 2 partitions, declared 5");
            assertThat(admin.describeTopics(Set.of("baton.tasks.skewed")).allTopicNames().get().get("baton.tasks.skewed").partitions()).hasSize(2);
        }
    }

    /**
     * An idempotent producer writing the moment {@link TopicCreator#create} returns, with many small
     * batches in flight, loses none. Before create waited for the partitions' leaders, a batch sent
     * before the broker opened its partition was refused, a later one was taken, and the first
     * one's retries were refused as out of sequence until the delivery timeout (docs/decisions.md,
     * "Idempotent writes to a just-created topic"); that lost records in most rounds on a loaded
     * machine, so three rounds catch a regression nearly always.
     */
    @Test
    void shouldTakeEveryIdempotentWriteSentTheMomentTheTopicIsCreated() throws Exception {
        int partitions = 12;
        int records = 1_200;
        try (Admin admin = admin()) {
            for (int round = 0; round < 3; round++) {
                String topic = "baton.tasks.fresh-" + round;
                new TopicCreator(admin).create(List.of(new TopicSpec(topic, partitions, (short) 1, Map.of())));

                int failed = 0;
                String firstFailure = "";
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(manySmallBatches(), new ByteArraySerializer(), new ByteArraySerializer())) {
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int i = 0; i < records; i++) {
                        sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, new byte[] {(byte) i})));
                    }
                    for (Future<RecordMetadata> f : sent) {
                        try {
                            f.get(60, TimeUnit.SECONDS);
                        } catch (ExecutionException e) {
                            firstFailure = failed++ == 0 ? e.getCause().toString() : firstFailure;
                        }
                    }
                }
                assertThat(failed).as(topic + " records not written, the first because " + firstFailure).isZero();
                assertThat(recordsIn(admin, topic, partitions)).as(topic).isEqualTo(records);
            }
        }
    }

    /** Baton's durable producer with a batch per record or two, five in flight, and a delivery timeout of 30 s, not two minutes: a lost batch fails the test soon. */
    private static Map<String, Object> manySmallBatches() {
        Map<String, Object> c = ClientConfigs.durableProducer(ClientConfigs.bootstrap(KAFKA.bootstrapServers()));
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64);
        c.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        return c;
    }

    private static long recordsIn(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()));
    }
}
