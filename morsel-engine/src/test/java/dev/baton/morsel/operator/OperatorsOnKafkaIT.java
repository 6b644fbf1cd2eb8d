package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.morsel.exchange.HashExchange;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Operators on the embedded broker: a topic range scanned through a pipeline, and the aggregate
 * exchange over Kafka partitions (two nodes' partials, a hot partition, a broadcast).
 */
class OperatorsOnKafkaIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", KAFKA.bootstrapServers());
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            admin.createTopics(Set.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Groups {@code keys} with slots (count, sum of key): what one node's partial aggregate holds. */
    private static AggregateResult partial(long[] keys, int from, int to) {
        LongAggTable t = new LongAggTable(2, 64);
        for (int i = from; i < to; i++) {
            int b = t.slotBase(keys[i]);
            t.values()[b]++;
            t.values()[b + 1] += keys[i] * 10;
        }
        return t.sorted();
    }

    @Test
    void shouldAggregateATopicRangeScannedThroughAFilterIntoAHashAggregate() throws Exception {
        createTopic("it-scan", 2);
        Map<Long, long[]> expected = new TreeMap<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 4_000; i++) {
                long key = i % 37;
                long value = i % 100;
                sent.add(p.send(new ProducerRecord<>("it-scan", i % 2, ByteBuffer.allocate(8).putLong(key).array(),
                        ByteBuffer.allocate(8).putLong(value).array())));
                if (value >= 10) {
                    long[] a = expected.computeIfAbsent(key, k -> new long[2]);
                    a[0]++;
                    a[1] += value;
                }
            }
        }
        for (Future<RecordMetadata> f : sent) {
            f.get(30, TimeUnit.SECONDS); // a lost write fails here with its cause, not as a scan waiting for it
        }
        List<OffsetRange> ranges = List.of(new OffsetRange("it-scan", 0, 0, 2_000), new OffsetRange("it-scan", 1, 0, 1_000),
                new OffsetRange("it-scan", 1, 1_000, 2_000));
        try (MorselScheduler s = new MorselScheduler(2, 1, MorselMetrics.noop());
             TopicPageSource topic = new TopicPageSource(config(), ranges, 2, List.of("key", "value"), (r, row) -> {
                 row[0] = r.key().getLong(r.key().position());
                 row[1] = r.value().getLong(r.value().position());
                 return true;
             })) {
            ScanPipeline scan = ScanPipeline.over(topic);
            HashAggregate agg = HashAggregate.groupBy(scan.col("key"), 64).count().sum(scan.col("value"));
            scan.filter(RangeFilter.between(scan.col("value"), 10, Long.MAX_VALUE)).into(agg);
            s.run(scan.pipeline("topic-scan", PipelineKind.SCAN, Morsels.partition(0, ranges.size(), 1, 1), 2));

            AggregateResult r = agg.result(s);
            assertThat(r.rows()).isEqualTo(expected.size());
            int i = 0;
            for (Map.Entry<Long, long[]> e : expected.entrySet()) {
                assertThat(r.row(i++)).containsExactly(e.getKey(), e.getValue()[0], e.getValue()[1]);
            }
        }
    }

    @Test
    void shouldMergeTwoNodesPartialsOnceEachAcrossPartitionsEvenWhenAHotPartitionSpills() throws Exception {
        createTopic("baton.exchange.it-hot", 4);
        long[] keys = new long[3_000];
        for (long k = 0, n = 0; n < keys.length; k++) {
            if (HashExchange.partitionOf(k, 4) == 1 || k % 5 == 0) { // mostly one partition: hot
                keys[(int) n++] = k % 2_000;
            }
        }
        Map<Long, long[]> expected = new TreeMap<>();
        for (long k : keys) {
            long[] a = expected.computeIfAbsent(k, x -> new long[2]);
            a[0]++;
            a[1] += k * 10;
        }
        KafkaAggregateExchange exchange = new KafkaAggregateExchange(config(), "baton.exchange.it-hot", 4, 2);

        AggregateExchange.Layout first = exchange.send(partial(keys, 0, 1_500), 200);
        AggregateExchange.Layout second = exchange.send(partial(keys, 1_500, keys.length), 200);
        AggregateResult merged = exchange.gather();

        assertThat(first.spilled() + second.spilled()).isPositive();
        for (int n : first.groupsPerPartition()) {
            assertThat(n).isLessThanOrEqualTo(200 + 1_500 / 4);
        }
        assertThat(merged.rows()).isEqualTo(expected.size());
        int r = 0;
        for (Map.Entry<Long, long[]> e : expected.entrySet()) {
            assertThat(merged.row(r++)).containsExactly(e.getKey(), e.getValue()[0], e.getValue()[1]);
        }
    }

    @Test
    void shouldBroadcastEveryGroupToEveryPartition() throws Exception {
        createTopic("baton.exchange.it-broadcast", 3);
        KafkaAggregateExchange exchange = new KafkaAggregateExchange(config(), "baton.exchange.it-broadcast", 3, 2);
        AggregateResult small = partial(new long[] {7, 7, 7, 7, 42, 99}, 0, 6); // skewed: key 7 four times

        exchange.broadcast(small);

        for (int p = 0; p < 3; p++) {
            AggregateResult got = exchange.merge(p);
            assertThat(got.rowKeys()).containsExactly(7, 42, 99);
            assertThat(got.rowValues()).containsExactly(small.rowValues());
        }
    }

    @Test
    void shouldStopOnAForeignRecordNamingItsPartitionAndOffset() throws Exception {
        createTopic("baton.exchange.it-foreign", 1);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            p.send(new ProducerRecord<>("baton.exchange.it-foreign", 0, new byte[8], new byte[3])).get();
        }
        KafkaAggregateExchange exchange = new KafkaAggregateExchange(config(), "baton.exchange.it-foreign", 1, 2);
        assertThatThrownBy(() -> exchange.merge(0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("baton.exchange.it-foreign-0@0").hasMessageContaining("value of 16 bytes, had 3 bytes");
    }
}
