package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live Kafka Streams instance under {@code group.protocol=streams} (Kafka 4.4's default broker
 * accepts it): its group is a streams group, which describeConsumerGroups reports as not found. A slow
 * transaction of that live process must be left alone; one of a process that is not in the group is
 * still fenced.
 */
class StreamsGroupFencerIT {

    private static final String APP = "baton-streams-sg";
    private static final Pattern PROCESS = Pattern.compile(Pattern.quote(APP) + "-([0-9a-f-]{36})-StreamThread-");

    @TempDir
    Path dataDir;

    @TempDir
    Path stateDir;

    @Test
    void shouldLeaveALiveStreamsGroupMembersTransactionAlone() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dataDir).build().start();
             Admin admin = Admin.create(ClientConfigs.admin(kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("sg.in", 1, (short) 1), new NewTopic("sg.out", 1, (short) 1),
                    new NewTopic("sg.slow", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream("sg.in").to("sg.out");
            Properties p = new Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
            p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
            p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
            try (KafkaStreams streams = new KafkaStreams(builder.build(), p)) {
                streams.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> streams.state() == KafkaStreams.State.RUNNING
                        && streams.metadataForLocalThreads().stream().anyMatch(t -> !t.activeTasks().isEmpty()));
                String live = processOf(streams);
                String liveId = APP + "-" + live + "-99"; // not a real thread's: its init would fence that thread
                String goneId = APP + "-" + UUID.randomUUID() + "-1";
                TopicPartition liveTp = new TopicPartition("sg.slow", 0);
                TopicPartition goneTp = new TopicPartition("sg.slow", 1);
                // The live process's transaction, slow (a stalled broker): its id is one of the live process's.
                KafkaProducer<byte[], byte[]> slow = leftOpen(kafka, liveId, liveTp);
                KafkaProducer<byte[], byte[]> gone = leftOpen(kafka, goneId, goneTp);

                AbandonedTransactionFencer fencer = new AbandonedTransactionFencer(Admin.create(ClientConfigs.admin(kafka.bootstrapServers())),
                        ClientConfigs.bootstrap(kafka.bootstrapServers()), APP, Duration.ofMillis(500));
                try {
                    assertThat(await().atMost(Duration.ofSeconds(20)).until(fencer::runOnce, fenced -> !fenced.isEmpty()))
                            .containsExactly(goneId);
                    await().atMost(Duration.ofSeconds(20)).until(() -> readable(admin, goneTp) > 0);
                    assertThat(fencer.runOnce()).isEmpty();
                    assertThat(readable(admin, liveTp)).isZero();
                } finally {
                    fencer.close();
                }
                for (KafkaProducer<byte[], byte[]> pr : List.of(slow, gone)) {
                    pr.close(Duration.ZERO);
                }
            }
        }
    }

    private static String processOf(KafkaStreams streams) {
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            Matcher m = PROCESS.matcher(t.consumerClientId());
            if (m.find()) {
                return m.group(1);
            }
        }
        throw new AssertionError("no process UUID in " + streams.metadataForLocalThreads());
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

    private static long readable(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
    }
}
