package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.kafka.TopicSplits;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.testkit.LocalCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * GROUP BY over a 100,000-record topic by engine nodes that split the work through Baton activities
 * and a Kafka exchange: one node, two nodes, and two nodes of which one dies after writing partials
 * all give the answer of a plain Java loop over the same records.
 */
class DistributedGroupByIT {

    private static final String SOURCE = "engine-input";
    private static final int RECORDS = 100_000;
    private static final int GROUPS = 997;
    private static LocalCluster cluster;
    private static DispatchClient client;
    private static final Map<Long, List<Long>> reference = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(6, List.of(EngineNode.QUEUE));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(SOURCE, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<Long, long[]> sums = new HashMap<>();
        // One request in flight and every send checked: pipelined batches sent right after the topic's
        // creation can be dropped with OutOfOrderSequenceException (KAFKA-15591, fixed in Kafka 4.5; see
        // docs/decisions.md), and the reference must describe exactly what the topic holds.
        Map<String, Object> producerConfig = new HashMap<>(cluster.clientConfig());
        producerConfig.put("max.in.flight.requests.per.connection", 1);
        List<Future<?>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < RECORDS; i++) {
                long key = (i * 7919) % GROUPS;
                long value = i % 1000 - 300;
                sends.add(producer.send(new ProducerRecord<>(SOURCE, bytes(key), bytes(value))));
                long[] acc = sums.computeIfAbsent(key, k -> new long[2]);
                acc[0] += value;
                acc[1]++;
            }
        }
        for (Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
        sums.forEach((k, v) -> reference.put(k, List.of(v[0], v[1])));
        client = cluster.client("engine-jobs", o -> { });
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void shouldMatchThePlainJavaAnswerOnOneNodeAndOnTwo() throws Exception {
        try (EngineNode one = EngineNode.start("node-a", cluster.clientConfig(), 2)) {
            DistributedGroupBy.Result single = job().run("single", SOURCE, 10_000, 3);
            assertThat(rows(single)).isEqualTo(reference);
            assertThat(single.splits()).isEqualTo(12);
            try (EngineNode two = EngineNode.start("node-b", cluster.clientConfig(), 2)) {
                assertThat(rows(job().run("pair", SOURCE, 10_000, 3))).isEqualTo(reference);
            }
        }
    }

    @Test
    void shouldStillMatchWhenANodeDiesAfterWritingPartialsMidJob() throws Exception {
        CountDownLatch victimWrote = new CountDownLatch(1);
        List<String> zombieExecutions = new CopyOnWriteArrayList<>();
        EngineNode victim = EngineNode.start("node-victim", cluster.clientConfig(), 1, (node, split, execution) -> {
            zombieExecutions.add(split + "=" + execution);
            victimWrote.countDown();
            new CountDownLatch(1).await(); // hold the split until the crash: its partials are in the exchange, its outcome never sent
        });
        try (EngineNode survivor = EngineNode.start("node-survivor", cluster.clientConfig(), 2)) {
            Thread killer = new Thread(() -> {
                try {
                    if (victimWrote.await(120, TimeUnit.SECONDS)) {
                        victim.kill();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            killer.start();
            DistributedGroupBy.Result result = job().run("crash", SOURCE, 5_000, 4);
            killer.join(10_000);

            assertThat(zombieExecutions).as("the victim wrote partials before it died").isNotEmpty();
            assertThat(rows(result)).isEqualTo(reference);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldScanTheTopicAsColumnPagesInParallelMorsels() throws Exception {
        List<OffsetRange> ranges;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cluster.clientConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            ranges = TopicSplits.of(consumer, SOURCE, 4_096);
        }
        Map<Long, long[]>[] partials = new Map[] {new HashMap<>(), new HashMap<>()};
        try (TopicPageSource pages = new TopicPageSource(cluster.clientConfig(), ranges, 2, List.of("key", "value"), (r, row) -> {
                 row[0] = ByteBuffer.wrap(r.key()).getLong();
                 row[1] = ByteBuffer.wrap(r.value()).getLong();
                 return true;
             });
             MorselScheduler scheduler = new MorselScheduler(2, 1, MorselMetrics.noop())) {
            scheduler.run(new Pipeline("sum by key", Morsels.partition(0, pages.pageCount(), 1, 1), (worker, morsel, ctx) -> {
                int page = morsel.startPage();
                int rows = pages.rowsIn(page);
                LongBuffer keys = pages.page(page, 0);
                LongBuffer values = pages.page(page, 1);
                for (int i = 0; i < rows; i++) {
                    long[] acc = partials[worker].computeIfAbsent(keys.get(i), k -> new long[2]);
                    acc[0] += values.get(i);
                    acc[1]++;
                }
            }));
        }
        Map<Long, List<Long>> merged = new TreeMap<>();
        for (Map<Long, long[]> p : partials) {
            p.forEach((k, v) -> merged.merge(k, List.of(v[0], v[1]), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1))));
        }
        assertThat(ranges).hasSizeGreaterThan(20);
        assertThat(merged).isEqualTo(reference);
    }

    private static DistributedGroupBy job() {
        return new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofMinutes(3));
    }

    private static Map<Long, List<Long>> rows(DistributedGroupBy.Result r) {
        Map<Long, List<Long>> out = new TreeMap<>();
        r.rows().forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }

    private static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }
}
