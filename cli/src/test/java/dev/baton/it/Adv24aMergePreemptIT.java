package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.node.DistributedGroupBy;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.node.protocol.GroupSum;
import dev.baton.morsel.node.protocol.MergedRows;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 24 (h/adv24a), finding 4: the job secret keeps a hostile dispatcher from having a node run a step, but
 * not from answering the job's step itself. A job's steps are sites {@code engine / <job> / <run>.scan-i} and
 * {@code <run>.merge-p} with attempt 1 and run id "", so their idempotency key is a function of the site key. The run id
 * is on {@code baton.results} (every dispatcher reads it) as soon as the first scan is answered, while the merges are
 * dispatched only after the last scan. A dispatcher dispatches {@code <run>.merge-0} first, to a queue whose worker it
 * controls (or with any input, to fail the job); the job's own merge dispatch is then a duplicate of that site (same
 * attempt, same key) and joins its outcome: the job answers with the rows the hostile worker made up. Each step's
 * activity id now carries a nonce of its own, so its site is unknown until the job dispatches it.
 */
class Adv24aMergePreemptIT {

    private static final String SOURCE = "adv24a-src";
    private static final String EVIL_QUEUE = "evil";
    private static final Pattern RUN = Pattern.compile("(run-[A-Za-z0-9_-]{12})\\.scan-\\d+");
    private static LocalCluster cluster;
    private static final Map<Long, List<Long>> reference = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.start(3, List.of(EngineNode.QUEUE, EVIL_QUEUE));
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            admin.createTopics(Set.of(new NewTopic(SOURCE, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        // One request in flight: pipelined batches sent right after the topic's creation can be dropped with
        // OutOfOrderSequenceException (KAFKA-15591, as in DistributedGroupByIT).
        Map<String, Object> producerConfig = new HashMap<>(cluster.clientConfig());
        producerConfig.put("max.in.flight.requests.per.connection", 1);
        List<Future<?>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < 200; i++) {
                long key = i % 7;
                sends.add(producer.send(new ProducerRecord<>(SOURCE, (int) (i % 2), bytes(key), bytes(i))));
                reference.merge(key, List.of(i, 1L), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
            }
        }
        for (Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void aDispatcherCannotAnswerARunningJobsMergeForIt() throws Exception {
        AtomicInteger scans = new AtomicInteger();
        CountDownLatch preempted = new CountDownLatch(1);
        // the second split's scan is slow (a large split): the first one's outcome is out meanwhile
        EngineNode.ScanListener slowSecond = (n, split, execution) -> {
            if (scans.getAndIncrement() == 1) {
                preempted.await(2, TimeUnit.MINUTES);
            }
        };
        byte[] forged = bytes(new MergedRows(List.of(new GroupSum(42L, 1_000_000L, 1L))).toByteBuffer());
        try (EngineNode node = EngineNode.start("adv24a-node", cluster.clientConfig(), 1, slowSecond);
             var evilWorker = cluster.worker(WorkerOptions.builder().kafkaConfig(cluster.clientConfig()).workerId("evil-worker")
                     .queues(EVIL_QUEUE).handler("forge", (ctx, input) -> forged));
             DispatchClient jobClient = cluster.client("adv24a-job", o -> { });
             DispatchClient evil = cluster.client("adv24a-evil", o -> { })) {
            CompletableFuture<DistributedGroupBy.Result> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return new DistributedGroupBy(cluster.clientConfig(), jobClient, Duration.ofMinutes(2)).run("victim", SOURCE, 100, 1);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // the hostile dispatcher reads baton.results, as every dispatcher may, for the job's run id
            String run = runIdFromResults();
            ActivityOutcome mine = evil.dispatch(ActivityRequest.builder().site("engine", "victim", run + ".merge-0").queue(EVIL_QUEUE)
                    .activityType("forge").input(new byte[] {1}, "application/octet-stream").build()).get(60, TimeUnit.SECONDS);
            assertThat(mine.completed()).as(mine.toString()).isTrue();
            preempted.countDown();

            Map<Long, List<Long>> answer = rows(job.get(2, TimeUnit.MINUTES).rows());
            assertThat(answer).as("the job's answer").isEqualTo(reference);
        }
    }

    private static String runIdFromResults() {
        Map<String, Object> c = new HashMap<>(cluster.clientConfig());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = consumer.partitionsFor(BatonTopics.RESULTS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String text = (r.key() == null ? "" : new String(r.key(), ISO_8859_1)) + (r.value() == null ? "" : new String(r.value(), ISO_8859_1));
                    Matcher m = RUN.matcher(text);
                    if (m.find()) {
                        return m.group(1);
                    }
                }
            }
        }
        throw new AssertionError("no scan outcome on " + BatonTopics.RESULTS);
    }

    private static Map<Long, List<Long>> rows(Map<Long, long[]> rows) {
        Map<Long, List<Long>> out = new TreeMap<>();
        rows.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }
}
