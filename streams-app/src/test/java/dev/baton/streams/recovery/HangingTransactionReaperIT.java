package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.baton.embedded.EmbeddedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hanging transactions made the way the soak met them: a committed transaction whose marker is
 * missing from the partition, while its coordinator records it complete. The test cuts the marker
 * off the segment file with the broker stopped. A worker's is aborted; a streams-app step whose input
 * offsets were committed is not (aborting would lose the step); another application's is left alone.
 */
class HangingTransactionReaperIT {

    private static final String TOPIC = "baton.worker-events";
    private static final TopicPartition OURS = new TopicPartition(TOPIC, 0);
    private static final TopicPartition FOREIGN = new TopicPartition(TOPIC, 1);
    private static final TopicPartition STREAMS_STEP = new TopicPartition(TOPIC, 2);

    @TempDir
    Path dataDir;

    @Test
    void shouldAbortAWorkersHangingTransactionOnly() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dataDir).build().start();
        try {
            try (Admin admin = admin(kafka)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            commitWithoutMarker(kafka, "baton-worker.q.w1", OURS);
            commitWithoutMarker(kafka, "other-app-1", FOREIGN);
            commitWithoutMarker(kafka, "baton-streams-p1-1", STREAMS_STEP);
            kafka.stop();
            cutLastBatch(OURS);
            cutLastBatch(FOREIGN);
            cutLastBatch(STREAMS_STEP);
            kafka.start();

            try (Admin admin = admin(kafka)) {
                HangingTransactionFinder finder = new HangingTransactionFinder(admin, t -> t.startsWith("baton."),
                        id -> id.startsWith("baton-worker.") || id.startsWith("baton-streams-"), 0, Clock.systemUTC());
                assertThat(heldBack(admin)).containsExactlyInAnyOrder(OURS, FOREIGN, STREAMS_STEP);

                // the producers' timeout is 1 s; the finder waits for twice that
                List<HangingTransaction> found = await().atMost(Duration.ofSeconds(30)).until(finder::find, f -> f.size() == 2);
                assertThat(found).extracting(HangingTransaction::transactionalId).containsExactlyInAnyOrder("baton-worker.q.w1", "baton-streams-p1-1");
                assertThat(found).allSatisfy(h -> assertThat(h.coordinatorSays()).startsWith("CompleteCommit"));

                HangingTransactionReaper reaper = new HangingTransactionReaper(admin(kafka), finder, id -> id.startsWith("baton-worker."));
                try {
                    assertThat(reaper.runOnce()).extracting(HangingTransaction::partition).containsExactly(OURS);
                } finally {
                    reaper.close();
                }
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(heldBack(admin)).containsExactlyInAnyOrder(FOREIGN, STREAMS_STEP));
                assertThat(finder.find()).extracting(HangingTransaction::partition).containsExactly(STREAMS_STEP);
            }
        } finally {
            kafka.close();
        }
    }

    /** A committed transaction of one record on {@code tp}; returns once its marker is on disk. */
    private void commitWithoutMarker(EmbeddedKafka kafka, String transactionalId, TopicPartition tp) throws Exception {
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers(), "transactional.id", transactionalId,
                "transaction.timeout.ms", 1_000));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, new byte[] {1})).get();
            long withoutMarker = Files.size(segment(tp));
            producer.commitTransaction();
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.size(segment(tp)) > withoutMarker);
        }
    }

    /** Truncates the partition's segment before its last batch (the marker) and drops what would remember it. */
    private void cutLastBatch(TopicPartition tp) throws IOException {
        Path segment = segment(tp);
        long lastBatch = 0;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(12);
            long position = 0;
            while (position < ch.size()) {
                header.clear();
                ch.read(header, position);
                header.flip();
                header.getLong(); // base offset
                int length = header.getInt(); // bytes after the offset and length fields
                lastBatch = position;
                position += 12 + length;
            }
            ch.truncate(lastBatch);
        }
        try (Stream<Path> files = Files.list(segment.getParent())) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".snapshot") || name.endsWith(".index") || name.endsWith(".timeindex") || name.endsWith(".txnindex")) {
                    Files.delete(f);
                }
            }
        }
    }

    private Path segment(TopicPartition tp) {
        return dataDir.resolve("logs").resolve(tp.topic() + "-" + tp.partition()).resolve("00000000000000000000.log");
    }

    private static List<TopicPartition> heldBack(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = Map.of(OURS, OffsetSpec.latest(), FOREIGN, OffsetSpec.latest(), STREAMS_STEP, OffsetSpec.latest());
        var stable = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
        var end = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get(30, TimeUnit.SECONDS);
        return latest.keySet().stream().filter(tp -> stable.get(tp).offset() < end.get(tp).offset()).toList();
    }

    private static Admin admin(EmbeddedKafka kafka) {
        return Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }
}
