package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.node.ExchangeSecret;
import dev.baton.morsel.node.protocol.AcceptedExecution;
import dev.baton.morsel.node.protocol.MergeStep;
import dev.baton.morsel.node.protocol.ScanStep;
import dev.baton.morsel.node.protocol.Split;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review adv20b of the engine nodes: hostile engine steps dispatched by anyone who may write
 * {@code baton.dispatch}. Each hostile step must end as a terminal failure naming the broken constraint within a
 * bounded time (never a slot held for hours, a 90 s stall or a retry), and must never change another job's answer.
 */
class Adv20bEngineNodeIT {

    /**
     * A hostile step's guess at a job's secret (ExchangeSecret): checked after the exchange's structure, so those cases are
     * refused for their own defect; the source's cases carry the job's secret, as a job's own malformed step would (a step
     * without it is refused before its source is looked at: h/adv24a).
     */
    private static final String FORGED_SECRET = "0".repeat(64);

    private static final String SOURCE = "adv20b-src";
    private static final int RECORDS = 4_000;
    /** A hostile step must be answered well within this; a legitimate one of these sizes takes a second or two. */
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static LocalCluster cluster;
    private static DispatchClient client;
    private static final Map<Long, List<Long>> reference = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(6, List.of(EngineNode.QUEUE));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(SOURCE, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> producerConfig = new HashMap<>(cluster.clientConfig());
        producerConfig.put("max.in.flight.requests.per.connection", 1);
        List<Future<?>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < RECORDS; i++) {
                long key = (i * 7919) % 97;
                long value = i % 1000 - 300;
                sends.add(producer.send(new ProducerRecord<>(SOURCE, (int) (i % 2), bytes(key), bytes(value))));
                reference.merge(key, List.of(value, 1L), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
            }
        }
        for (Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
        client = cluster.client("adv20b-jobs", o -> { });
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void shouldRefuseAScanIntoAnExchangeThatDoesNotExistAtOnceAndServeTheNextJob() throws Exception {
        try (EngineNode node = EngineNode.start("adv20b-ghost", cluster.clientConfig(), 2)) {
            // job 'ghost' never created its exchange (or it already ended and deleted it): every group's send waited
            // max.block.ms (60 s) for metadata, one group after the other: 97 groups held the node's slot for 97 minutes
            ActivityOutcome o = hostile("ghost-exchange", scan("ghost", 3, new Split(SOURCE, 0, 0L, 1_000L)));

            assertTerminal(o, BatonTopics.EXCHANGE_PREFIX + "ghost");
            assertThat(answer("after-ghost")).isEqualTo(reference);
        }
    }

    @Test
    void shouldRefuseAScanOfMoreExchangePartitionsThanTheJobsExchangeHas() throws Exception {
        createExchange("narrow", 1);
        try (EngineNode node = EngineNode.start("adv20b-narrow", cluster.clientConfig(), 2)) {
            // partitions 1..999 of baton.exchange.narrow do not exist: each send to one waited max.block.ms
            ActivityOutcome o = hostile("wide-exchange", scan("narrow", 1_000, new Split(SOURCE, 0, 0L, 1_000L)));

            assertTerminal(o, "1000");
        }
    }

    @Test
    void shouldRefuseAScanOfATopicThatDoesNotExist() throws Exception {
        String secret = createExchangeWithSecret("nosource", 2);
        try (EngineNode node = EngineNode.start("adv20b-nosource", cluster.clientConfig(), 2)) {
            // was: 'retryable: PipelineFailedException ... TimeoutException: Failed to get offsets by times in 10000ms' after ~190 s
            // (with the job's secret: one without it is refused for that before its source is looked at, h/adv24a)
            ActivityOutcome o = hostile("no-source", scan("nosource", 2, new Split("adv20b-no-such-topic", 0, 0L, 100L), secret));

            assertTerminal(o, "adv20b-no-such-topic");
        }
    }

    @Test
    void shouldRefuseAScanOfARangePastThePartitionsEnd() throws Exception {
        String secret = createExchangeWithSecret("pastend", 2);
        try (EngineNode node = EngineNode.start("adv20b-pastend", cluster.clientConfig(), 2)) {
            // was: 'retryable: ... no progress reading ... for 90 s' after 90 s, and retried; [0, Long.MAX_VALUE) ran out of heap
            // planning 4e14 morsels (TopicMorsels.plan) before reading anything (with the job's secret, as above)
            ActivityOutcome o = hostile("past-end", scan("pastend", 2, new Split(SOURCE, 0, 0L, 1_000_000_000L), secret));

            assertTerminal(o, "1000000000");
        }
    }

    @Test
    void shouldRefuseAScanOfNoExchangePartitions() throws Exception {
        createExchange("zero", 2);
        try (EngineNode node = EngineNode.start("adv20b-zero", cluster.clientConfig(), 2)) {
            // was 'retryable: IllegalArgumentException: partitions must be >= 1, was 0', after the whole scan, and retried
            ActivityOutcome o = hostile("zero-partitions", scan("zero", 0, new Split(SOURCE, 0, 0L, 1_000L)));

            assertTerminal(o, "was 0");
        }
    }

    @Test
    void shouldRefuseAMergeOfAnExchangePartitionThatDoesNotExist() throws Exception {
        createExchange("merge99", 2);
        try (EngineNode node = EngineNode.start("adv20b-merge99", cluster.clientConfig(), 2)) {
            MergeStep step = MergeStep.newBuilder().setVersion(2).setJob("merge99").setExchangePartition(99)
                    .setAccepted(List.of(new AcceptedExecution(new Split(SOURCE, 0, 0L, 10L), "1.1"))).setSecret(FORGED_SECRET).build();
            ActivityOutcome o = hostile("merge-99", bytes(step.toByteBuffer()), EngineNode.MERGE);

            assertTerminal(o, "99");
        }
    }

    /**
     * A dispatcher who knows a running job's id and one of its splits (both in the job's activity inputs and site
     * keys) dispatches that split's scan again under a site of its own. Its partials are tagged with the same split
     * and an execution id {@code attempt.generation} = "1.1", the very execution the manifest names for the job's own
     * first-generation scan: the merge counts the split twice.
     */
    @Test
    void shouldNotCountAHostileRescanOfAJobsSplitDispatchedUnderAnotherSite() throws Exception {
        AtomicInteger written = new AtomicInteger();
        AtomicReference<OffsetRange> firstSplit = new AtomicReference<>();
        CountDownLatch firstWritten = new CountDownLatch(1);
        CountDownLatch hostileDone = new CountDownLatch(1);
        EngineNode.ScanListener hold = (n, split, execution) -> {
            if (written.getAndIncrement() == 0) {
                firstSplit.set(split);
                firstWritten.countDown();
                hostileDone.await(2, TimeUnit.MINUTES); // the job's first scan reports only after the hostile one ran
            }
        };
        try (EngineNode node = EngineNode.start("adv20b-victim", cluster.clientConfig(), 2, hold)) {
            CompletableFuture<DistributedGroupBy.Result> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofMinutes(2)).run("victim", SOURCE, Long.MAX_VALUE, 2);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(firstWritten.await(2, TimeUnit.MINUTES)).isTrue();
            OffsetRange s = firstSplit.get();
            ActivityOutcome forged = dispatch("evil", "rescan", scan("victim", 2, new Split(s.topic(), s.partition(), s.from(), s.to())), EngineNode.SCAN)
                    .get(2, TimeUnit.MINUTES);
            hostileDone.countDown();

            // the hostile dispatcher cannot know the job's secret (h/adv23e): refused, where it once ran and was not counted
            assertTerminal(forged, "does not carry the secret");
            assertThat(rows(job.get(2, TimeUnit.MINUTES).rows())).isEqualTo(reference);
        }
    }

    private ActivityOutcome hostile(String workflow, byte[] scanStep) throws Exception {
        return hostile(workflow, scanStep, EngineNode.SCAN);
    }

    /** Dispatches a hostile step with a retry policy that would retry anything retryable, and waits up to {@link #BOUND}. */
    private ActivityOutcome hostile(String workflow, byte[] step, String type) throws Exception {
        CompletableFuture<ActivityOutcome> f = dispatch("hostile", workflow, step, type);
        await().atMost(BOUND).until(f::isDone);
        return f.get();
    }

    private CompletableFuture<ActivityOutcome> dispatch(String namespace, String workflow, byte[] step, String type) {
        return client.dispatch(ActivityRequest.builder().site(namespace, workflow, "1").queue(EngineNode.QUEUE).activityType(type)
                .input(step, "application/vnd.baton.engine-step+avro").heartbeat(Duration.ofSeconds(2))
                .retry(ActivityRequest.RetryOptions.of(Duration.ofSeconds(1), 0)).build());
    }

    private static void assertTerminal(ActivityOutcome o, String named) {
        assertThat(o.completed()).as("a hostile step must fail").isFalse();
        assertThat(o.reason()).startsWith("terminal:").contains(named);
    }

    private Map<Long, List<Long>> answer(String job) throws Exception {
        return rows(new DistributedGroupBy(cluster.clientConfig(), client, Duration.ofMinutes(2)).run(job, SOURCE, 1_000, 2).rows());
    }

    private static void createExchange(String job, int partitions) throws Exception {
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(BatonTopics.EXCHANGE_PREFIX + job, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] scan(String job, int exchangePartitions, Split split) throws Exception {
        return scan(job, exchangePartitions, split, FORGED_SECRET);
    }

    private static byte[] scan(String job, int exchangePartitions, Split split, String secret) throws Exception {
        return bytes(ScanStep.newBuilder().setVersion(2).setJob(job).setExchangePartitions(exchangePartitions).setSplit(split)
                .setSecret(secret).build().toByteBuffer());
    }

    /** An exchange as a job creates it, with its secret: a step that carries it is checked against its source. */
    private static String createExchangeWithSecret(String job, int partitions) throws Exception {
        createExchange(job, partitions);
        String secret = ExchangeSecret.create();
        ExchangeSecret.write(cluster.clientConfig(), BatonTopics.EXCHANGE_PREFIX + job, secret);
        return secret;
    }



    private static Map<Long, List<Long>> rows(Map<Long, long[]> rows) {
        Map<Long, List<Long>> out = new TreeMap<>();
        rows.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }
}
