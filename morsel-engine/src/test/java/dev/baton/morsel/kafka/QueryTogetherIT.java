package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.HashAggregate;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queries run as one job ({@link TopicFold#queryTogether}) answer what each answers alone and what a
 * plain Java loop over the records answers, over topics of several partitions, at 1 to 3 workers.
 */
class QueryTogetherIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final List<String> COLUMNS = List.of("key", "value");
    /** Per topic: key -> {count, sum of values}, as the plain loop adds them up while writing. */
    private static final Map<String, Map<Long, long[]>> EXPECTED = new TreeMap<>();

    @BeforeAll
    static void writeTopics() throws Exception {
        write("together-a", 3, 5_000, 41);
        write("together-b", 4, 3_000, 7);
    }

    private static void write(String topic, int partitions, int records, int keys) throws Exception {
        try (Admin admin = Admin.create(config())) {
            // TopicCreator waits until every partition takes writes: an idempotent producer's first batch
            // to a partition its leader has not opened yet can be lost (KAFKA-15591, docs/decisions.md).
            new TopicCreator(admin).create(List.of(new TopicSpec(topic, partitions, (short) 1, Map.of())));
        }
        Map<Long, long[]> expected = new TreeMap<>();
        Map<String, Object> producerConfig = new HashMap<>(config());
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                long key = i % keys;
                long value = i * 3L % 101;
                sent.add(p.send(new ProducerRecord<>(topic, i % partitions, bytes(key), bytes(value))));
                long[] a = expected.computeIfAbsent(key, k -> new long[2]);
                a[0]++;
                a[1] += value;
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(60, TimeUnit.SECONDS); // a record that failed to be written fails the set-up, not the query
            }
        }
        EXPECTED.put(topic, expected);
    }

    @Test
    void shouldAnswerEachQueryOfAJobAsItAnswersAloneAndAsThePlainLoopDoes() {
        for (int threads = 1; threads <= 3; threads++) {
            try (TopicFold fold = new TopicFold(config(), threads, MorselMetrics.noop())) {
                List<TopicFold.Result<AggregateResult>> together = fold.queryTogether(
                        List.of(countAndSum(fold, "together-a"), countAndSum(fold, "together-b")), () -> false);

                for (int q = 0; q < 2; q++) {
                    String topic = q == 0 ? "together-a" : "together-b";
                    AggregateResult alone = fold.query(countAndSum(fold, topic), () -> false).value();
                    assertThat(rows(together.get(q).value())).as(topic + " at " + threads + " threads")
                            .isEqualTo(rows(alone)).isEqualTo(plain(topic));
                    assertThat(together.get(q).records()).as(topic).isEqualTo(q == 0 ? 5_000 : 3_000);
                }
            }
        }
    }

    private static TopicFold.TopicQuery<AggregateResult> countAndSum(TopicFold fold, String topic) {
        return new TopicFold.TopicQuery<>(fold.partitions(topic), COLUMNS, (r, row) -> {
            row[0] = r.key().getLong(r.key().position());
            row[1] = r.value().getLong(r.value().position());
            return true;
        }, scan -> {
            HashAggregate agg = HashAggregate.groupBy(scan.col("key"), 64).count().sum(scan.col("value"));
            scan.into(agg);
            return agg::result;
        });
    }

    private static Map<Long, List<Long>> rows(AggregateResult r) {
        Map<Long, List<Long>> out = new TreeMap<>();
        for (int i = 0; i < r.rows(); i++) {
            out.put(r.key(i), List.of(r.value(i, 0), r.value(i, 1)));
        }
        return out;
    }

    private static Map<Long, List<Long>> plain(String topic) {
        Map<Long, List<Long>> out = new TreeMap<>();
        EXPECTED.get(topic).forEach((k, a) -> out.put(k, List.of(a[0], a[1])));
        return out;
    }

    private static byte[] bytes(long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", KAFKA.bootstrapServers());
    }
}
