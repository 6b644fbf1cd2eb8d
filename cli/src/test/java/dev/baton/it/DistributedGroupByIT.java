package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.net.URI;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongUnaryOperator;

import dev.baton.cli.CliRun;
import dev.baton.cli.ProcessEndpoint;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.morsel.kafka.TopicMorsels;
import dev.baton.morsel.node.protocol.ScanStep;
import dev.baton.morsel.node.protocol.Split;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.kafka.TopicSplits;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.node.ExchangeSecret;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.exchange.HashExchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.baton.testkit.LocalCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * GROUP BY over a 100,000-record topic by engine nodes that split the work through Baton activities
 * and a Kafka exchange: one node, two nodes, and two nodes of which one dies after writing partials
 * all give the answer of a plain Java loop over the same records; so does {@code baton engine-group-by}
 * over two nodes. A cancelled scan stops within the morsel it is reading, and a step of another
 * protocol version is refused by name.
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
        Map<Long, long[]> sums = produce(SOURCE, 4, RECORDS);
        sums.forEach((k, v) -> reference.put(k, List.of(v[0], v[1])));
        client = cluster.client("engine-jobs", o -> { });
    }

    /** Creates {@code topic} and writes {@code records} rows to it; returns their GROUP BY key answer. */
    private static Map<Long, long[]> produce(String topic, int partitions, int records) throws Exception {
        return produce(topic, partitions, records, i -> (i * 7919) % GROUPS);
    }

    /** As {@link #produce(String, int, int)}, row {@code i} keyed {@code keyOf(i)}. */
    private static Map<Long, long[]> produce(String topic, int partitions, int records, LongUnaryOperator keyOf) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        return send(topic, records, keyOf, i -> i % 1000 - 300, new HashMap<>());
    }

    /**
     * Writes {@code records} rows, row {@code i} keyed {@code keyOf(i)} with value {@code valueOf(i)}, and adds them to
     * {@code sums}, which it returns: the GROUP BY key answer of what the topic holds.
     */
    private static Map<Long, long[]> send(String topic, int records, LongUnaryOperator keyOf, LongUnaryOperator valueOf,
                                          Map<Long, long[]> sums) throws Exception {
        // One request in flight and every send checked: pipelined batches sent right after the topic's
        // creation can be dropped with OutOfOrderSequenceException (KAFKA-15591, fixed in Kafka 4.5; see
        // docs/decisions.md), and the reference must describe exactly what the topic holds.
        Map<String, Object> producerConfig = new HashMap<>(cluster.clientConfig());
        producerConfig.put("max.in.flight.requests.per.connection", 1);
        List<Future<?>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < records; i++) {
                long key = keyOf.applyAsLong(i);
                long value = valueOf.applyAsLong(i);
                sends.add(producer.send(new ProducerRecord<>(topic, bytes(key), bytes(value))));
                long[] acc = sums.computeIfAbsent(key, k -> new long[2]);
                acc[0] += value;
                acc[1]++;
            }
        }
        for (Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
        return sums;
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
                 row[0] = r.key().getLong(r.key().position());
                 row[1] = r.value().getLong(r.value().position());
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

    @Test
    void shouldAnswerTheGroupByCommandOverTwoNodesAndServeTheirMorselMeters() throws Exception {
        int port = EmbeddedKafka.freePort();
        try (ProcessEndpoint served = new ProcessEndpoint(port);
             EngineNode a = EngineNode.start("cmd-node-a", cluster.clientConfig(), 2, (n, s, e) -> { }, served.registry());
             EngineNode b = EngineNode.start("cmd-node-b", cluster.clientConfig(), 2)) {
            CliRun run = CliRun.of("engine-group-by", "--bootstrap-servers", cluster.bootstrapServers(), "--topic", SOURCE, "--job", "cmd",
                    "--offsets-per-split", "5000", "--exchange-partitions", "3", "--limit", "100000");

            assertThat(run.exit()).as(run.output()).isZero();
            Map<Long, List<Long>> printed = new TreeMap<>();
            for (String line : run.output().split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 3 && f[0].matches("-?\\d+")) {
                    printed.put(Long.parseLong(f[0]), List.of(Long.parseLong(f[1]), Long.parseLong(f[2])));
                }
            }
            assertThat(printed).isEqualTo(reference);
            assertThat(run.output()).containsPattern(GROUPS + " groups, 100,000 records, \\d+ splits, 3 exchange partitions");
            String scraped = new String(URI.create("http://localhost:" + port + "/metrics").toURL().openStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(scraped).contains("baton_morsel_workers_active").containsPattern("baton_morsel_morsels_total [1-9]");
        }
    }

    @Test
    void shouldSpillAHotExchangePartitionAndStillMatchTheSingleNodeAnswerOverTwoNodes() throws Exception {
        // Skewed: half the rows carry key 42, and six in seven of the other keys hash to exchange partition 1 of 3.
        long[] keys = new long[1_500];
        for (long k = 0, n = 0; n < keys.length; k++) {
            if (HashExchange.partitionOf(k, 3) == 1 || k % 7 == 0) {
                keys[(int) n++] = k;
            }
        }
        Map<Long, List<Long>> skewed = new TreeMap<>();
        produce("engine-skewed", 4, 60_000, i -> i % 2 == 0 ? 42 : keys[(int) ((i / 2) % keys.length)])
                .forEach((k, v) -> skewed.put(k, List.of(v[0], v[1])));
        MeterRegistry metersA = new SimpleMeterRegistry();
        MeterRegistry metersB = new SimpleMeterRegistry();
        try (EngineNode a = EngineNode.start("skew-node-a", cluster.clientConfig(), 2, (n, s, e) -> { }, metersA)) {
            Map<Long, List<Long>> single = rows(job().run("skew-single", "engine-skewed", 10_000, 3));
            assertThat(single).isEqualTo(skewed);
            double spilledAlone = spilled(metersA);
            assertThat(spilledAlone).as("groups spilled from the hot partition on one node").isPositive();
            try (EngineNode b = EngineNode.start("skew-node-b", cluster.clientConfig(), 2, (n, s, e) -> { }, metersB)) {
                CliRun run = CliRun.of("engine-group-by", "--bootstrap-servers", cluster.bootstrapServers(), "--topic", "engine-skewed",
                        "--job", "skew-pair", "--offsets-per-split", "5000", "--exchange-partitions", "3", "--limit", "100000");

                assertThat(run.exit()).as(run.output()).isZero();
                assertThat(printedRows(run.output())).isEqualTo(single);
                assertThat(spilled(metersA) - spilledAlone + spilled(metersB)).as("groups spilled in the two-node run").isPositive();
            }
        }
    }

    private static double spilled(MeterRegistry meters) {
        return meters.get("baton_morsel_exchange_spilled_groups").counter().count();
    }

    private static Map<Long, List<Long>> printedRows(String output) {
        Map<Long, List<Long>> printed = new TreeMap<>();
        for (String line : output.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].matches("-?\\d+")) {
                printed.put(Long.parseLong(f[0]), List.of(Long.parseLong(f[1]), Long.parseLong(f[2])));
            }
        }
        return printed;
    }

    @Test
    void shouldStopARunningScanWithinOneMorselWhenItsActivityIsCancelled() throws Exception {
        String topic = "engine-stop-input";
        int records = 200_000;
        produce(topic, 1, records);
        String job = "stopped";
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(BatonTopics.EXCHANGE_PREFIX + job, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        String secret = ExchangeSecret.create(); // as the job writes it when it creates its exchange
        ExchangeSecret.write(cluster.clientConfig(), BatonTopics.EXCHANGE_PREFIX + job, secret);
        CountDownLatch firstMorsel = new CountDownLatch(1);
        AtomicInteger morsels = new AtomicInteger();
        AtomicInteger partialsWritten = new AtomicInteger();
        EngineNode.ScanListener holdUntilStopped = new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, OffsetRange split, String execution) {
                partialsWritten.incrementAndGet();
            }

            @Override
            public void morselScanned(String nodeId, OffsetRange split, BooleanSupplier cancelled) {
                morsels.incrementAndGet();
                firstMorsel.countDown();
                await().atMost(Duration.ofSeconds(60)).until(cancelled::getAsBoolean); // the STOP reached the node
            }
        };
        try (EngineNode node = EngineNode.start("stop-node", cluster.clientConfig(), 1, holdUntilStopped)) {
            ScanStep step = ScanStep.newBuilder().setVersion(2).setJob(job).setExchangePartitions(1)
                    .setSplit(new Split(topic, 0, 0L, (long) records)).setSecret(secret).build();
            CompletableFuture<ActivityOutcome> scan = client.dispatch(scanActivity(job, step.toByteBuffer()));
            assertThat(firstMorsel.await(60, TimeUnit.SECONDS)).as("the scan started").isTrue();

            client.cancel(new SiteKey("engine", job, "scan-0")).get(30, TimeUnit.SECONDS);

            assertThat(scan.get(60, TimeUnit.SECONDS).reasonPrefix()).isEqualTo("cancelled:");
            long perMorsel = TopicMorsels.offsetsPerMorsel(Morsels.l2Bytes(), 8 + 8 + 8);
            assertThat((long) records).as("the split spans several morsels").isGreaterThan(2 * perMorsel);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(morsels).as("morsels scanned after the STOP").hasValue(1));
            assertThat(partialsWritten).hasValue(0);
        }
    }

    @Test
    void shouldAnswerAJobRunAgainUnderTheSameIdFromWhatTheTopicHoldsNow() throws Exception {
        // A nightly job keeps its id. Its steps are Baton sites, and a resolved site answers a repeated dispatch with its
        // stored outcome for the dedupe window: run again, a job must not be handed its last run's answers.
        String topic = "engine-rerun";
        Map<Long, long[]> first = produce(topic, 2, 20_000);
        try (EngineNode node = EngineNode.start("rerun-node", cluster.clientConfig(), 2)) {
            assertThat(rows(job().run("nightly", topic, 5_000, 2))).isEqualTo(asLists(first));
            Map<Long, long[]> grown = appendAndSum(topic, 10_000, first);

            assertThat(rows(job().run("nightly", topic, 5_000, 2))).isEqualTo(asLists(grown));
        }
    }

    @Test
    void shouldFailAJobOverARecordThatIsNotARowTerminallyNamingTheRecord() throws Exception {
        String topic = "engine-not-rows";
        produce(topic, 1, 5_000);
        long at;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            at = producer.send(new ProducerRecord<>(topic, "order".getBytes(StandardCharsets.UTF_8), bytes(1))).get(30, TimeUnit.SECONDS).offset();
        }
        try (EngineNode node = EngineNode.start("shape-node", cluster.clientConfig(), 1)) {
            assertThatThrownBy(() -> job().run("not-rows", topic, 2_000, 1))
                    .hasMessageContaining("terminal: record " + topic + "-0@" + at + " has a 5-byte key")
                    .hasMessageContaining("8-byte big-endian keys and values");
        }
    }

    @Test
    void shouldRefuseAJobWhoseMergeStepsCouldNotHoldItsSplitsBeforeScanningAnything() throws Exception {
        AtomicInteger scans = new AtomicInteger();
        EngineNode.ScanListener counting = new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, OffsetRange split, String execution) {
            }

            @Override
            public void morselScanned(String nodeId, OffsetRange split, BooleanSupplier cancelled) {
                scans.incrementAndGet();
            }
        };
        try (EngineNode node = EngineNode.start("split-node", cluster.clientConfig(), 1, counting)) {
            // 100,000 offsets cut 5 apiece: 20,000 splits, and every merge step's input names each one
            assertThatThrownBy(() -> job().run("too-many-splits", SOURCE, 5, 2))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching("(?s)2000\\d splits make each merge step's input ~\\d+ bytes.*")
                    .hasMessageContaining("max.payload.bytes 524288")
                    .hasMessageMatching("(?s).*give --offsets-per-split at least \\d+ \\(was 5\\).*");
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(BatonTopics.EXCHANGE_PREFIX + "too-many-splits");
            }
            assertThat(scans).as("scans run for a job refused at its start").hasValue(0);
        }
    }

    @Test
    void shouldMergeManyGroupsAndNameTheExchangePartitionsWhenAMergeAnswerIsTooLargeToReport() throws Exception {
        String topic = "engine-many-groups";
        Map<Long, long[]> sums = produce(topic, 2, 150_000, i -> i);
        try (EngineNode node = EngineNode.start("groups-node", cluster.clientConfig(), 2)) {
            // ~19,000 groups a merge: each merge's table grows well past its first size, and its answer fits a report
            assertThat(rows(job().run("many-groups-8", topic, 50_000, 8))).isEqualTo(asLists(sums));
            // 150,000 groups in one merge: over the worker's 512 KiB output limit
            assertThatThrownBy(() -> job().run("many-groups", topic, 50_000, 1))
                    .hasMessageContaining("merge of exchange partition 0 failed: terminal: OutputTooLarge")
                    .hasMessageContaining("give the job more --exchange-partitions");
        }
    }

    /** Appends {@code records} rows of {@link #produce}'s kind to {@code topic}; returns {@code before} with them added. */
    private static Map<Long, long[]> appendAndSum(String topic, int records, Map<Long, long[]> before) throws Exception {
        Map<Long, long[]> sums = new HashMap<>();
        before.forEach((k, v) -> sums.put(k, v.clone()));
        return send(topic, records, i -> (i * 31) % GROUPS, i -> i % 500 + 7, sums);
    }

    private static Map<Long, List<Long>> asLists(Map<Long, long[]> sums) {
        Map<Long, List<Long>> out = new TreeMap<>();
        sums.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }

    @Test
    void shouldFailAJobThatRunsOutOfItsTimeoutAsAWholeAndCancelEveryStepStillRunning() throws Exception {
        // Each split's scan holds its first morsel 10 s (or until cancelled): twelve splits on a node of two slots take
        // ~60 s. A 6 s timeout for the job fails it while its first scans are held: with 2.5 s holds and 4 s, a loaded
        // host (fresh-clone CI, 2026-12-07) started no scan before the timeout, and none was there to be told to stop.
        Set<OffsetRange> held = ConcurrentHashMap.newKeySet();
        AtomicInteger scansStarted = new AtomicInteger();
        AtomicInteger scansCancelled = new AtomicInteger();
        EngineNode.ScanListener slow = new EngineNode.ScanListener() {
            @Override
            public void partialsWritten(String nodeId, OffsetRange split, String execution) {
            }

            @Override
            public void morselScanned(String nodeId, OffsetRange split, BooleanSupplier cancelled) {
                if (!held.add(split)) {
                    return;
                }
                scansStarted.incrementAndGet();
                try {
                    await().pollInterval(Duration.ofMillis(20)).atMost(Duration.ofMillis(10_000)).until(cancelled::getAsBoolean);
                    scansCancelled.incrementAndGet();
                } catch (ConditionTimeoutException slowScanDone) {
                    // the scan took its 10 s; it goes on
                }
            }
        };
        try (EngineNode node = EngineNode.start("slow-node", cluster.clientConfig(), 1, slow)) {
            long began = System.nanoTime();
            assertThatThrownBy(() -> new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofSeconds(6))
                    .run("out-of-time", SOURCE, 10_000, 2))
                    .isInstanceOf(TimeoutException.class).hasMessageContaining("ran out of its timeout PT6S");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(14));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(scansCancelled).as("scans running when the job failed, each told to stop").hasPositiveValue());
            int started = scansStarted.get();
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(scansStarted).as("no step of the failed job started after it failed").hasValue(started));
            assertThat(started).as("the job failed before its twelve splits were scanned").isLessThan(12);
        }
    }

    @Test
    void shouldRefuseAScanStepOfAnotherProtocolVersionTerminallyNamingIt() throws Exception {
        try (EngineNode node = EngineNode.start("version-node", cluster.clientConfig(), 1)) {
            ScanStep step = ScanStep.newBuilder().setVersion(99).setJob("future").setExchangePartitions(1)
                    .setSplit(new Split(SOURCE, 0, 0L, 10L)).setSecret("").build();

            ActivityOutcome o = client.dispatch(scanActivity("future", step.toByteBuffer())).get(60, TimeUnit.SECONDS);

            assertThat(o.completed()).isFalse();
            assertThat(o.reason()).startsWith("terminal:").contains("job protocol version 99", "speaks version 2");
        }
    }

    private static ActivityRequest scanActivity(String job, ByteBuffer input) {
        byte[] bytes = new byte[input.remaining()];
        input.get(bytes);
        return ActivityRequest.builder().site("engine", job, "scan-0").queue(EngineNode.QUEUE).activityType(EngineNode.SCAN)
                .input(bytes, "application/vnd.baton.engine-step+avro").heartbeat(Duration.ofSeconds(2)).build();
    }

    private static DistributedGroupBy job() {
        return new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofMinutes(3));
    }

    private static Map<Long, List<Long>> rows(DistributedGroupBy.Result r) {
        Map<Long, List<Long>> out = new TreeMap<>();
        r.rows().forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }
}
