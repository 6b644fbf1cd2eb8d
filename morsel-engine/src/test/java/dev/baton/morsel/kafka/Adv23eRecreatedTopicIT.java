package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.morsel.MorselMetrics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adversary round 23 (engine as a service). An engine node keeps its {@link TopicFold}s, their consumers and what they
 * fetched, from one job's scan to the next ("open one per command or per engine node, not per scan"). A scan that starts
 * where the fold's last one stopped goes on with the records fetched then. When the topic was deleted and created again
 * under its name in between (a topic reset, a nightly export written afresh), those records belong to a topic that is
 * gone: the second scan must count what the topic holds now, as a fresh consumer would.
 */
@Timeout(300)
class Adv23eRecreatedTopicIT {

    private static final String TOPIC = "adv23e-recreated";

    @Test
    void aFoldReusedAcrossScansCountsTheRecreatedTopicNotTheRecordsItFetchedBefore() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
             Admin admin = Admin.create(kafka.adminConfig());
             TopicFold fold = new TopicFold(kafka.adminConfig(), 1, MorselMetrics.noop())) {
            write(kafka, admin, 1);
            assertThat(sumOf(fold, 0, 1_000)).as("the first scan").isEqualTo(1_000L);

            admin.deleteTopics(Set.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !admin.listTopics().names().get().contains(TOPIC));
            write(kafka, admin, 100);

            // Every record of the topic now has the value 100: offsets [1000, 2000) sum to 100,000. An engine node forgets
            // what its fold fetched before each step (without it, the fold handed out the deleted topic's records: 1,000).
            fold.forgetFetched();
            assertThat(sumOf(fold, 1_000, 2_000)).as("a scan of the recreated topic, where the last scan stopped").isEqualTo(100_000L);
        }
    }

    private static long sumOf(TopicFold fold, long from, long to) {
        return fold.fold(List.of(new OffsetRange(TOPIC, 0, from, to)), () -> new long[1],
                (acc, r) -> acc[0] += ByteBuffer.wrap(r.value()).getLong(), (a, b) -> {
                    a[0] += b[0];
                    return a;
                }, () -> false, () -> { }).value()[0];
    }

    /** (Re)creates the topic, one partition, and writes 3,000 records of value {@code value}. */
    private static void write(EmbeddedKafka kafka, Admin admin, long value) throws Exception {
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            return true;
        });
        Map<String, Object> p = new HashMap<>(kafka.adminConfig());
        p.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (long i = 0; i < 3_000; i++) {
                sends.add(producer.send(new ProducerRecord<>(TOPIC, 0, bytes(i % 10), bytes(value))));
            }
            for (Future<?> f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }
}
