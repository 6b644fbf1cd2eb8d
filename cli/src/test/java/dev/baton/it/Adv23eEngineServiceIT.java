package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.testkit.LocalCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 23 (engine as a service): the distributed group-by against a plain read_committed Java fold of the same
 * topic, on sources a running platform has (transactions with aborts, compacted gaps), and engine nodes that crash, come
 * back under the same id, join late, or share a job id.
 */
class Adv23eEngineServiceIT {

    private static LocalCluster cluster;
    private static DispatchClient client;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(6, List.of(EngineNode.QUEUE));
        client = cluster.client("adv23e-jobs", o -> { });
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        cluster.close();
    }

    private static DistributedGroupBy job(Duration timeout) {
        return new DistributedGroupBy(cluster.clientConfig(), client, timeout);
    }


    private static void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The answer of a plain read_committed consumer over everything the topic holds now. */
    private static Map<Long, List<Long>> plainFold(String topic) {
        Map<String, Object> c = new HashMap<>(cluster.clientConfig());
        c.put("isolation.level", "read_committed");
        Map<Long, long[]> sums = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    long[] acc = sums.computeIfAbsent(ByteBuffer.wrap(r.key()).getLong(), k -> new long[2]);
                    acc[0] += ByteBuffer.wrap(r.value()).getLong();
                    acc[1]++;
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return lists(sums);
    }

    private static Map<Long, List<Long>> lists(Map<Long, long[]> sums) {
        Map<Long, List<Long>> out = new TreeMap<>();
        sums.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }

    private static Map<Long, List<Long>> rows(DistributedGroupBy.Result r) {
        return lists(r.rows());
    }

    /** Writes committed and aborted transactions interleaved on every partition, and plain records between them. */
    private static Map<Long, List<Long>> writeTransactional(String topic, int rounds) throws Exception {
        Map<Long, long[]> expected = new HashMap<>();
        Map<String, Object> tx1 = new HashMap<>(cluster.clientConfig());
        tx1.put("transactional.id", topic + "-tx1");
        Map<String, Object> tx2 = new HashMap<>(cluster.clientConfig());
        tx2.put("transactional.id", topic + "-tx2");
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> committer = new KafkaProducer<>(tx1, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaProducer<byte[], byte[]> aborter = new KafkaProducer<>(tx2, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaProducer<byte[], byte[]> loose = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            committer.initTransactions();
            aborter.initTransactions();
            long i = 0;
            for (int round = 0; round < rounds; round++) {
                committer.beginTransaction();
                aborter.beginTransaction();
                List<Future<?>> sends = new ArrayList<>();
                for (int n = 0; n < 40; n++, i++) {
                    long key = i % 13;
                    sends.add(committer.send(new ProducerRecord<>(topic, bytes(key), bytes(i))));
                    add(expected, key, i);
                    // Aborted: a value that would show, large and keyed apart.
                    sends.add(aborter.send(new ProducerRecord<>(topic, bytes(key + 1000), bytes(1_000_000_000L))));
                    aborter.flush();
                    if (n % 10 == 0) {
                        sends.add(loose.send(new ProducerRecord<>(topic, bytes(key), bytes(-i))));
                        add(expected, key, -i);
                        loose.flush();
                    }
                    committer.flush();
                }
                committer.commitTransaction();
                aborter.abortTransaction();
                for (Future<?> f : sends) {
                    try {
                        f.get(30, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // an aborted send may be failed by the abort; it does not count either way
                    }
                }
            }
        }
        return lists(expected);
    }

    private static void add(Map<Long, long[]> sums, long key, long value) {
        long[] acc = sums.computeIfAbsent(key, k -> new long[2]);
        acc[0] += value;
        acc[1]++;
    }

    @Test
    void abortedTransactionsNeverCountAndSplitsEndingOnMarkersMatchThePlainFold() throws Exception {
        String topic = "adv23e-tx";
        createTopic(topic, 2, Map.of());
        Map<Long, List<Long>> expected = writeTransactional(topic, 12);
        Map<Long, List<Long>> plain = plainFold(topic);
        assertThat(plain).as("the plain read_committed fold").isEqualTo(expected);

        try (EngineNode a = EngineNode.start("tx-a", cluster.clientConfig(), 1)) {
            // Small splits: many start or end inside an aborted transaction or on a marker.
            assertThat(rows(job(Duration.ofMinutes(3)).run("tx-one", topic, 37, 2))).isEqualTo(expected);
            try (EngineNode b = EngineNode.start("tx-b", cluster.clientConfig(), 2)) {
                assertThat(rows(job(Duration.ofMinutes(3)).run("tx-two", topic, 37, 3))).isEqualTo(expected);
                assertThat(rows(job(Duration.ofMinutes(3)).run("tx-big", topic, 1_000_000, 1))).isEqualTo(expected);
            }
        }
    }

    /**
     * Once failed on main (each key 2 rows where the plain fold counted 19): the cleaner went on compacting between the
     * plain fold and the job, so the two read different logs. The topic's compaction is now switched off once it has gaps,
     * and the reference taken when the log no longer changes.
     */
    @Test
    void aCompactedSourceWithGapsMatchesThePlainFold() throws Exception {
        String topic = "adv23e-compacted";
        createTopic(topic, 2, Map.of("cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.001",
                "min.compaction.lag.ms", "0", "delete.retention.ms", "0"));
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int wave = 0; wave < 30; wave++) {
                List<Future<?>> sends = new ArrayList<>();
                for (long k = 0; k < 50; k++) {
                    sends.add(p.send(new ProducerRecord<>(topic, bytes(k), bytes(wave * 100 + k))));
                }
                for (Future<?> f : sends) {
                    f.get(30, TimeUnit.SECONDS);
                }
                long until = System.nanoTime() + 150_000_000L;
                await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() > until); // segment.ms: the next wave rolls a segment
            }
        }
        // Wait for the cleaner: fewer records than offsets.
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            long count = plainFold(topic).values().stream().mapToLong(v -> v.get(1)).sum();
            return count < 1_000;
        });
        try (Admin admin = Admin.create(cluster.clientConfig())) { // the gaps stay; no clean changes the log under the jobs
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "-1"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        Map<Long, List<Long>> expected = settledFold(topic);
        try (EngineNode a = EngineNode.start("cmp-a", cluster.clientConfig(), 2);
             EngineNode b = EngineNode.start("cmp-b", cluster.clientConfig(), 1)) {
            for (long perSplit : new long[] {7, 1_000_000}) {
                assertThat(rows(job(Duration.ofMinutes(3)).run("cmp-" + perSplit, topic, perSplit, 2))).as("%d offsets per split", perSplit)
                        .isEqualTo(expected);
            }
        }
    }

    /** The plain fold once three folds a second apart agree: a clean under way when compaction was switched off has ended. */
    private static Map<Long, List<Long>> settledFold(String topic) {
        List<Map<Long, List<Long>>> folds = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            folds.add(plainFold(topic));
            int n = folds.size();
            return n >= 3 && folds.get(n - 1).equals(folds.get(n - 2)) && folds.get(n - 2).equals(folds.get(n - 3));
        });
        return folds.get(folds.size() - 1);
    }

    private static Map<Long, List<Long>> plainRows(String topic, int records, int partitions) throws Exception {
        createTopic(topic, partitions, Map.of());
        Map<Long, long[]> sums = new HashMap<>();
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (long i = 0; i < records; i++) {
                long key = (i * 31) % 211;
                sends.add(p.send(new ProducerRecord<>(topic, bytes(key), bytes(i % 17))));
                add(sums, key, i % 17);
            }
            for (Future<?> f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        return lists(sums);
    }

    @Test
    void aNodeKilledMidScanAndRestartedUnderTheSameIdLeavesTheAnswerRight() throws Exception {
        String topic = "adv23e-restart";
        Map<Long, List<Long>> expected = plainRows(topic, 40_000, 2);
        CountDownLatch holding = new CountDownLatch(1);
        AtomicBoolean hold = new AtomicBoolean(true);
        EngineNode victim = EngineNode.start("same-id", cluster.clientConfig(), 1, new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, dev.baton.morsel.kafka.OffsetRange split, String execution) {
            }

            @Override
            public void morselScanned(String nodeId, dev.baton.morsel.kafka.OffsetRange split, java.util.function.BooleanSupplier cancelled)
                    throws InterruptedException {
                if (hold.get()) {
                    holding.countDown();
                    new CountDownLatch(1).await(); // until the crash
                }
            }
        });
        CompletableFuture<DistributedGroupBy.Result> result = CompletableFuture.supplyAsync(() -> {
            try {
                return job(Duration.ofMinutes(3)).run("restart", topic, 4_000, 3);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        assertThat(holding.await(120, TimeUnit.SECONDS)).isTrue();
        hold.set(false);
        victim.kill();
        try (EngineNode reborn = EngineNode.start("same-id", cluster.clientConfig(), 2)) {
            assertThat(rows(result.get(180, TimeUnit.SECONDS))).isEqualTo(expected);
        }
    }

    @Test
    void aJobWithNoNodeIsAnsweredByANodeThatJoinsLate() throws Exception {
        String topic = "adv23e-late";
        Map<Long, List<Long>> expected = plainRows(topic, 20_000, 3);
        CompletableFuture<DistributedGroupBy.Result> result = CompletableFuture.supplyAsync(() -> {
            try {
                return job(Duration.ofMinutes(3)).run("late", topic, 3_000, 2);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // The job has made its exchange and dispatched its scans before any node runs.
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.listTopics().names().get().contains("baton.exchange.late"));
        }
        assertThat(result).isNotDone();
        try (EngineNode late = EngineNode.start("late-node", cluster.clientConfig(), 2)) {
            assertThat(rows(result.get(180, TimeUnit.SECONDS))).isEqualTo(expected);
        }
    }

    @Test
    void aSecondJobUnderARunningJobsIdIsRefusedAndTheFirstStaysRight() throws Exception {
        String topic = "adv23e-twice";
        Map<Long, List<Long>> expected = plainRows(topic, 20_000, 2);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (EngineNode node = EngineNode.start("twice-node", cluster.clientConfig(), 1, new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, dev.baton.morsel.kafka.OffsetRange split, String execution) {
            }

            @Override
            public void morselScanned(String nodeId, dev.baton.morsel.kafka.OffsetRange split, java.util.function.BooleanSupplier cancelled)
                    throws InterruptedException {
                holding.countDown();
                release.await(60, TimeUnit.SECONDS);
            }
        })) {
            CompletableFuture<DistributedGroupBy.Result> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return job(Duration.ofMinutes(3)).run("twice", topic, 5_000, 2);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(holding.await(120, TimeUnit.SECONDS)).isTrue();
            try (DispatchClient other = cluster.client("adv23e-other", o -> { })) {
                assertThatThrownBy(() -> new DistributedGroupBy(cluster.clientConfig(), other, Duration.ofSeconds(30)).run("twice", topic, 5_000, 2))
                        .hasMessageContaining("exists already");
            }
            release.countDown();
            assertThat(rows(first.get(180, TimeUnit.SECONDS))).isEqualTo(expected);
        }
    }

    /**
     * A nightly job over a topic that is deleted and written afresh before each run (an export, a reset): a long-running
     * node's scans must count what the topic holds at the run, not records its fold fetched from the topic's earlier life.
     */
    @Test
    void aJobOverATopicRecreatedUnderItsNameCountsWhatTheTopicHoldsNow() throws Exception {
        String topic = "adv23e-nightly";
        try (EngineNode node = EngineNode.start("nightly-node", cluster.clientConfig(), 1);
             Admin admin = Admin.create(cluster.clientConfig())) {
            for (int night = 1; night <= 3; night++) {
                if (night > 1) {
                    admin.deleteTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(60)).until(() -> !admin.listTopics().names().get().contains(topic));
                }
                long value = night * 1_000L;
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                    admin.createTopics(Set.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                    return true;
                });
                Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
                plain.put("max.in.flight.requests.per.connection", 1);
                try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
                    List<Future<?>> sends = new ArrayList<>();
                    for (long i = 0; i < 3_000; i++) {
                        sends.add(p.send(new ProducerRecord<>(topic, 0, bytes(i % 10), bytes(value))));
                    }
                    for (Future<?> f : sends) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                }
                Map<Long, List<Long>> expected = plainFold(topic);
                assertThat(expected.get(0L)).isEqualTo(List.of(300 * value, 300L));
                // The exchange is recreated each night too, under the same name, with another partition count.
                int exchangePartitions = new int[] {2, 3, 1, 4, 2}[night - 1];
                // A job of 3,000 records takes a few seconds; a minute is ample (a node's producer once stalled two minutes
                // on a recreated exchange: its sequence state of the deleted topic's partitions, KAFKA-15591's symptom).
                assertThat(rows(job(Duration.ofSeconds(60)).run("nightly", topic, 1_000, exchangePartitions))).as("night %d", night)
                        .isEqualTo(expected);
            }
        }
    }

    /** Keys and sums at the edges of a long (sums that wrap), against the plain fold at one and two nodes and threads. */
    @Test
    void extremeKeysAndWrappingSumsMatchThePlainFold() throws Exception {
        String topic = "adv23e-extremes";
        createTopic(topic, 3, Map.of());
        long[] keys = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, 65_535, 65_536, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        Map<String, Object> plain = new HashMap<>(cluster.clientConfig());
        plain.put("max.in.flight.requests.per.connection", 1);
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < 30_000; i++) {
                long key = keys[i % keys.length];
                long value = i % 3 == 0 ? Long.MAX_VALUE : i % 3 == 1 ? Long.MIN_VALUE + 7 : i;
                sends.add(p.send(new ProducerRecord<>(topic, bytes(key), bytes(value))));
            }
            for (Future<?> f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<Long, List<Long>> expected = plainFold(topic);
        assertThat(expected).hasSize(keys.length);
        try (EngineNode a = EngineNode.start("ext-a", cluster.clientConfig(), 1)) {
            assertThat(rows(job(Duration.ofMinutes(3)).run("ext-one", topic, 1_111, 1))).isEqualTo(expected);
            try (EngineNode b = EngineNode.start("ext-b", cluster.clientConfig(), 2)) {
                assertThat(rows(job(Duration.ofMinutes(3)).run("ext-two", topic, 1_111, 4))).isEqualTo(expected);
            }
        }
    }

    /**
     * A job run again and again under its id (its exchange deleted and created again each run under the same name) with
     * another exchange partition count each time, on one long-running node: each run of 20,000 records takes seconds, and
     * must not take the minutes of a producer's delivery timeout.
     */
    @Test
    void aJobRunAgainUnderItsIdWithAnotherExchangeShapeIsAnsweredWithinAMinuteEachTime() throws Exception {
        String topic = "adv23e-reruns";
        Map<Long, List<Long>> expected = plainRows(topic, 20_000, 2);
        try (EngineNode node = EngineNode.start("rerun-node", cluster.clientConfig(), 1)) {
            int[] shapes = {2, 3, 1, 4, 2};
            for (int run = 0; run < shapes.length; run++) {
                long start = System.nanoTime();
                assertThat(rows(job(Duration.ofSeconds(60)).run("rerun", topic, 2_500, shapes[run]))).as("run %d", run).isEqualTo(expected);
                System.out.printf("adv23e rerun %d (%d exchange partitions): %.1f s%n", run, shapes[run], (System.nanoTime() - start) / 1e9);
            }
        }
    }

    /**
     * Bad options of {@code engine-group-by} are refused before the job runs: {@code --limit -1} ran the whole job and
     * then threw Stream.limit's "-1" while printing, the answer lost with the time spent; a timeout of zero or less
     * dispatched every scan and then failed.
     */
    @Test
    void badGroupByOptionsAreRefusedBeforeAnyStepRuns() throws Exception {
        String topic = "adv23e-options";
        plainRows(topic, 5_000, 1);
        java.util.concurrent.atomic.AtomicInteger scans = new java.util.concurrent.atomic.AtomicInteger();
        try (EngineNode node = EngineNode.start("options-node", cluster.clientConfig(), 1, (n, split, e) -> scans.incrementAndGet())) {
            dev.baton.cli.CliRun limit = dev.baton.cli.CliRun.of("engine-group-by", "--bootstrap-servers", cluster.bootstrapServers(),
                    "--topic", topic, "--job", "neg-limit", "--offsets-per-split", "1000", "--limit", "-1");
            assertThat(limit.exit()).as(limit.output()).isNotZero();
            assertThat(scans).as("scans run for a job whose answer could not be printed").hasValue(0);

            for (String timeout : List.of("PT0S", "-PT5S")) {
                dev.baton.cli.CliRun run = dev.baton.cli.CliRun.of("engine-group-by", "--bootstrap-servers", cluster.bootstrapServers(),
                        "--topic", topic, "--job", "bad-timeout", "--offsets-per-split", "1000", "--timeout", timeout);
                assertThat(run.exit()).as(run.output()).isNotZero();
            }
            assertThat(scans).as("scans run for a job that had no time").hasValue(0);

            // And a good run still answers, with every row counted.
            dev.baton.cli.CliRun good = dev.baton.cli.CliRun.of("engine-group-by", "--bootstrap-servers", cluster.bootstrapServers(),
                    "--topic", topic, "--job", "good-options", "--offsets-per-split", "1000", "--limit", "0");
            assertThat(good.exit()).as(good.output()).isZero();
            assertThat(good.output()).contains("5,000 records");
        }
    }
}
