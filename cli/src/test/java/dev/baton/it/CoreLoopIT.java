package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.DispatchClientClosedException;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The core dispatch loop end to end on the embedded broker: client → streams app → workers → outcome. */
class CoreLoopIT {

    private static final Logger log = LoggerFactory.getLogger(CoreLoopIT.class);
    private static LocalCluster cluster;
    private static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private static final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(6, List.of("alpha", "beta", "gated", "nobody"));
        cluster.worker(options("w-1", "alpha"));
        cluster.worker(options("w-2", "alpha", "beta"));
        cluster.worker(options("w-3", "beta", "gated"));
    }

    @AfterAll
    static void stop() {
        try {
            InvariantChecker.Report report = InvariantChecker.check(cluster.bootstrapServers());
            assertThat(report.violations()).as(report.toString()).isEmpty();
        } finally {
            cluster.close();
        }
    }

    private static WorkerOptions.Builder options(String id, String... queues) {
        return WorkerOptions.builder().workerId(id).queues(queues).maxConcurrent(32)
                .handler("echo", (ctx, input) -> {
                    runs.computeIfAbsent(ctx.site().asKey(), k -> new AtomicInteger()).incrementAndGet();
                    return ("out-" + new String(input, UTF_8)).getBytes(UTF_8);
                })
                .handler("gated", (ctx, input) -> {
                    runs.computeIfAbsent(ctx.site().asKey(), k -> new AtomicInteger()).incrementAndGet();
                    CountDownLatch gate = gates.get(ctx.site().asKey());
                    if (gate != null && !gate.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("gate never opened");
                    }
                    return "gated-done".getBytes(UTF_8);
                });
    }

    private static ActivityRequest.Builder request(String workflow, String activity, String queue, String type, String input) {
        return ActivityRequest.builder().site("it", workflow, activity).queue(queue).activityType(type).input(input.getBytes(UTF_8), "text/plain");
    }

    @Test
    void shouldResolveTwoThousandActivitiesOverThreeWorkersAndTwoQueuesExactlyOnce() throws Exception {
        try (DispatchClient client = cluster.client("bulk", o -> { })) {
            List<CompletableFuture<ActivityOutcome>> futures = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                String queue = i % 2 == 0 ? "alpha" : "beta";
                futures.add(client.dispatch(request("bulk", Integer.toString(i), queue, "echo", "p" + i).build()));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);

            for (int i = 0; i < futures.size(); i++) {
                ActivityOutcome outcome = futures.get(i).get();
                assertThat(outcome.completed()).as(outcome.toString()).isTrue();
                assertThat(outcome.outputAsString()).isEqualTo("out-p" + i);
                assertThat(runs.get(new SiteKey("it", "bulk", Integer.toString(i)).asKey())).hasValue(1);
            }
        }
        Map<String, Long> completions = history().stream()
                .filter(h -> h.getKind() == HistoryKind.COMPLETED && h.getSite().getWorkflowId().equals("bulk"))
                .collect(Collectors.groupingBy(h -> h.getSite().getActivityId(), Collectors.counting()));
        assertThat(completions).hasSize(2_000).allSatisfy((site, n) -> assertThat(n).as(site).isEqualTo(1L));
    }

    @Test
    void shouldRefuseALateCompletionCarryingASupersededToken() throws Exception {
        try (DispatchClient client = cluster.client("takeover", o -> { });
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of());
             KafkaProducer<byte[], byte[]> zombie = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            ActivityRequest first = request("takeover", "1", "nobody", "echo", "x").build();
            CompletableFuture<ActivityOutcome> attempt1 = client.dispatch(first);
            ActivityTask task1 = awaitTask(registry, first.site(), 1);
            CompletableFuture<ActivityOutcome> attempt2 = client.dispatch(first.withAttempt(2));
            ActivityTask task2 = awaitTask(registry, first.site(), 2);

            assertThat(attempt1.get(30, TimeUnit.SECONDS).reason()).isEqualTo("superseded: by attempt 2");

            EventSerde<WorkerEvent> events = EventSerde.of(WorkerEvent.class, registry);
            zombie.send(completion(events, task1, "zombie", "stale")).get();
            zombie.send(completion(events, task2, "fresh-worker", "fresh")).get();

            ActivityOutcome outcome = attempt2.get(30, TimeUnit.SECONDS);
            assertThat(outcome.completed()).isTrue();
            assertThat(outcome.outputAsString()).isEqualTo("fresh");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(history()).anySatisfy(h -> {
                assertThat(h.getKind()).isEqualTo(HistoryKind.COMPLETION_REFUSED);
                assertThat(h.getWorkerId()).isEqualTo("zombie");
                assertThat(h.getSite().getWorkflowId()).isEqualTo("takeover");
            }));
        }
    }

    @Test
    void shouldNotRunADuplicateDispatchTwice() throws Exception {
        ActivityRequest req = request("dup", "1", "gated", "gated", "x").build();
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(req.site().asKey(), gate);
        try (DispatchClient client = cluster.client("dup", o -> { })) {
            CompletableFuture<ActivityOutcome> a = client.dispatch(req);
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.containsKey(req.site().asKey()));
            CompletableFuture<ActivityOutcome> b = client.dispatch(req);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(history()).anySatisfy(h -> {
                assertThat(h.getKind()).isEqualTo(HistoryKind.DUPLICATE_IGNORED);
                assertThat(h.getSite().getWorkflowId()).isEqualTo("dup");
            }));
            gate.countDown();

            assertThat(a.get(30, TimeUnit.SECONDS).outputAsString()).isEqualTo("gated-done");
            assertThat(b.get(30, TimeUnit.SECONDS).outputAsString()).isEqualTo("gated-done");
            assertThat(runs.get(req.site().asKey())).hasValue(1);
        }
    }

    @Test
    void shouldDeliverResultsMissedDuringARestartToTheUnmatchedHandlerOfTheSameClientId() throws Exception {
        ActivityRequest req = request("restart", "1", "gated", "gated", "x").build();
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(req.site().asKey(), gate);
        DispatchClient before = cluster.client("restarting", o -> { });
        CompletableFuture<ActivityOutcome> pending = before.dispatch(req);
        await().atMost(Duration.ofSeconds(30)).until(() -> runs.containsKey(req.site().asKey()));
        before.close();
        assertThatThrownBy(pending::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(DispatchClientClosedException.class);

        gate.countDown();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(history()).anySatisfy(h -> {
            assertThat(h.getKind()).isEqualTo(HistoryKind.COMPLETED);
            assertThat(h.getSite().getWorkflowId()).isEqualTo("restart");
        }));
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        try (DispatchClient after = cluster.client("restarting", unmatched::add)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !unmatched.isEmpty());
            assertThat(unmatched).singleElement().satisfies(o -> {
                assertThat(o.site()).isEqualTo(req.site());
                assertThat(o.outputAsString()).isEqualTo("gated-done");
            });
        }
    }

    @Test
    void shouldLogLatencyOfSequentialRoundTrips() throws Exception {
        Histogram micros = new Histogram(3);
        try (DispatchClient client = cluster.client("latency", o -> { })) {
            for (int i = 0; i < 150; i++) {
                long start = System.nanoTime();
                ActivityOutcome o = client.dispatch(request("latency", Integer.toString(i), "alpha", "echo", "l").build()).get(30, TimeUnit.SECONDS);
                assertThat(o.completed()).isTrue();
                if (i >= 50) { // the first 50 warm up JIT and connections
                    micros.recordValue((System.nanoTime() - start) / 1_000);
                }
            }
        }
        String line = String.format("sequential dispatch->outcome round trips: n=%d p50=%.1f ms p99=%.1f ms max=%.1f ms",
                micros.getTotalCount(), micros.getValueAtPercentile(50) / 1000.0, micros.getValueAtPercentile(99) / 1000.0,
                micros.getMaxValue() / 1000.0);
        log.warn(line);
        System.out.println(line);
        assertThat(micros.getTotalCount()).isEqualTo(100);
    }

    private static ProducerRecord<byte[], byte[]> completion(EventSerde<WorkerEvent> serde, ActivityTask task, String worker, String output) {
        WorkerEvent e = WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId(worker)
                .setOutput(new Payload(ByteBuffer.wrap(output.getBytes(UTF_8)), "text/plain")).setAtMillis(0L).build();
        return new ProducerRecord<>(BatonTopics.WORKER_EVENTS, SiteKey.of(task.getSite()).toBytes(), serde.encode(BatonTopics.WORKER_EVENTS, e));
    }

    private static ActivityTask awaitTask(SchemaRegistry registry, SiteKey site, int attempt) {
        EventSerde<ActivityTask> serde = EventSerde.of(ActivityTask.class, registry);
        ActivityTask[] found = new ActivityTask[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (ConsumerRecord<byte[], byte[]> r : TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("nobody"))) {
                ActivityTask t = serde.decode(r);
                if (SiteKey.of(t.getSite()).equals(site) && t.getAttempt() == attempt) {
                    found[0] = t;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    private static List<HistoryEvent> history() {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
            return TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.HISTORY).stream().map(serde::decode).toList();
        }
    }
}
