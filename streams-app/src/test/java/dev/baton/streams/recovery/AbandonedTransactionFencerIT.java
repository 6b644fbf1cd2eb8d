package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streams-app instance that crashed mid-transaction, played by a producer left open with a one-minute
 * timeout: read_committed readers of its partition wait until the fencer ends it, not its coordinator.
 * An instance still in the group, as slow as it may be, and another application are left alone.
 */
class AbandonedTransactionFencerIT {

    private static final String APP = "baton-streams";
    private static final TopicPartition CRASHED = new TopicPartition("baton.history", 0);
    private static final TopicPartition FOREIGN = new TopicPartition("baton.history", 1);
    private static final TopicPartition SLOW = new TopicPartition("baton.history", 2);

    @TempDir
    Path dataDir;

    @Test
    void shouldEndACrashedInstancesTransactionLongBeforeItsTimeout() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dataDir).build().start();
             Admin admin = Admin.create(ClientConfigs.admin(kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(CRASHED.topic(), 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            String crashedId = APP + "-" + UUID.randomUUID() + "-1";
            UUID live = UUID.randomUUID();
            String liveId = APP + "-" + live + "-1";
            String foreignId = "other-app-" + UUID.randomUUID() + "-1";
            KafkaProducer<byte[], byte[]> crashed = leftOpen(kafka, crashedId, CRASHED);
            KafkaProducer<byte[], byte[]> slow = leftOpen(kafka, liveId, SLOW);
            KafkaProducer<byte[], byte[]> foreign = leftOpen(kafka, foreignId, FOREIGN);
            KafkaConsumer<byte[], byte[]> member = joinAs(kafka, APP + "-" + live + "-StreamThread-1-consumer");
            assertThat(readable(admin, CRASHED)).isZero();

            AbandonedTransactionFencer fencer = new AbandonedTransactionFencer(Admin.create(ClientConfigs.admin(kafka.bootstrapServers())),
                    ClientConfigs.bootstrap(kafka.bootstrapServers()), APP, Duration.ofMillis(500));
            try {
                // Open longer than 500 ms soon; a minute before their own timeout would end them.
                assertThat(await().atMost(Duration.ofSeconds(20)).until(fencer::runOnce, fenced -> !fenced.isEmpty()))
                        .containsExactly(crashedId);
                await().atMost(Duration.ofSeconds(20)).until(() -> readable(admin, CRASHED) > 0);
                assertThatThrownBy(crashed::commitTransaction).isInstanceOf(KafkaException.class);
                assertThat(readable(admin, SLOW)).isZero();
                assertThat(readable(admin, FOREIGN)).isZero();

                // The same slow transaction once its process's session is over.
                member.close();
                assertThat(await().atMost(Duration.ofSeconds(20)).until(fencer::runOnce, fenced -> !fenced.isEmpty()))
                        .containsExactly(liveId);
            } finally {
                fencer.close();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> readable(admin, SLOW) > 0);
            assertThat(readable(admin, FOREIGN)).isZero();
            assertThat(admin.listTransactions().all().get(10, TimeUnit.SECONDS)).extracting(TransactionListing::transactionalId)
                    .contains(foreignId);
            for (KafkaProducer<byte[], byte[]> p : List.of(crashed, slow, foreign)) {
                p.close(Duration.ZERO);
            }
        }
    }

    /** A member of the app's group under a Streams-style client id, until closed. */
    private static KafkaConsumer<byte[], byte[]> joinAs(EmbeddedKafka kafka, String clientId) {
        Map<String, Object> c = ClientConfigs.groupConsumer(ClientConfigs.bootstrap(kafka.bootstrapServers()), APP, "earliest");
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(CRASHED.topic()));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            consumer.poll(Duration.ofMillis(100));
            return !consumer.assignment().isEmpty();
        });
        return consumer;
    }

    private static KafkaProducer<byte[], byte[]> leftOpen(EmbeddedKafka kafka, String transactionalId, TopicPartition tp) throws Exception {
        Map<String, Object> c = ClientConfigs.transactionalProducer(ClientConfigs.bootstrap(kafka.bootstrapServers()), transactionalId);
        c.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000);
        KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
        p.initTransactions();
        p.beginTransaction();
        p.send(new ProducerRecord<>(tp.topic(), tp.partition(), new byte[] {1}, new byte[] {1})).get(30, TimeUnit.SECONDS);
        return p;
    }

    /** The last stable offset: how far a read_committed reader may read. */
    private static long readable(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
    }
}
