package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.metrics.BatonMetric;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The outbox end to end: a completion that arrives after its site resolved, with a token the site
 * issued, is relayed on baton.results flagged unmatched to the run's caller, reaches the client's
 * UnmatchedResultHandler and is listed by {@code baton outbox}; ordinary outcomes are not listed, and
 * a completion for a site nobody dispatched goes to baton.dlq instead.
 *
 * <p>The late worker is played by the test: it reads the task (and so the token) from the task
 * topic and reports on baton.worker-events as a worker that never heard its stop would.
 */
class OutboxIT {

    private static final String CLIENT = "outbox-it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalCluster cluster;
    private static DispatchClient client;
    private static final List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of("outbox-echo", "outbox-late"));
        client = cluster.client(CLIENT, unmatched::add);
        cluster.worker(WorkerOptions.builder().workerId("echoer").queues("outbox-echo").handler("echo", (ctx, input) -> input));
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

    private static ActivityRequest request(String workflow, String queue, String type) {
        return ActivityRequest.builder().site("outbox", workflow, "1").queue(queue).activityType(type).input("in".getBytes(UTF_8), "text/plain")
                .build();
    }

    @Test
    void shouldRelayALateCompletionOfACancelledSiteToItsCallerAndListItInTheOutbox() throws Exception {
        ActivityRequest ordinary = request("ordinary", "outbox-echo", "echo");
        assertThat(client.dispatch(ordinary).get(60, TimeUnit.SECONDS).completed()).isTrue();
        ActivityRequest late = request("late", "outbox-late", "deaf");
        CompletableFuture<ActivityOutcome> caller = client.dispatch(late);
        ActivityTask task = awaitTask("outbox-late", late.site());
        report(task, WorkerEventKind.LEASED, null);
        awaitHistory(late.site(), HistoryKind.LEASED);
        client.cancel(late.site()).get(10, TimeUnit.SECONDS);
        ActivityOutcome cancelled = caller.get(30, TimeUnit.SECONDS);
        assertThat(cancelled.reason()).startsWith("cancelled:");

        report(task, WorkerEventKind.COMPLETED, "late output"); // the worker never heard its stop

        await().atMost(Duration.ofSeconds(30)).until(() -> !unmatched.isEmpty());
        assertThat(unmatched).singleElement().satisfies(o -> {
            assertThat(o.unmatched()).isTrue();
            assertThat(o.site()).isEqualTo(late.site());
            assertThat(o.requestId()).as("addressed to the run's caller").isEqualTo(cancelled.requestId());
            assertThat(o.completed()).isTrue();
            assertThat(o.outputAsString()).isEqualTo("late output");
            assertThat(o.workerId()).isEqualTo("deaf-worker");
        });
        assertThat(cluster.meters().get(BatonMetric.UNMATCHED_COMPLETIONS.meterName()).counter().count()).isEqualTo(1.0);

        CliRun text = CliRun.of("outbox", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(text.exit()).as(text.output()).isZero();
        assertThat(text.output()).contains(late.site().asKey(), cancelled.requestId(), "COMPLETED", "deaf-worker", "11 B",
                "1 in the outbox (all partitions of baton.results read").doesNotContain(ordinary.site().asKey());

        List<JsonNode> mine = jsonLines(CliRun.of("outbox", "--bootstrap-servers", cluster.bootstrapServers(), "--client-id", CLIENT, "-o", "json"));
        assertThat(mine).singleElement().satisfies(e -> {
            assertThat(e.get("site").asText()).isEqualTo(late.site().asKey());
            assertThat(e.get("requestId").asText()).isEqualTo(cancelled.requestId());
            assertThat(e.get("clientId").asText()).isEqualTo(CLIENT);
            assertThat(e.get("attempt").asInt()).isEqualTo(1);
            assertThat(e.get("status").asText()).isEqualTo("COMPLETED");
            assertThat(e.get("workerId").asText()).isEqualTo("deaf-worker");
            assertThat(e.get("outputBytes").asInt()).isEqualTo(11);
            assertThat(e.get("partition").asInt()).isEqualTo(BatonTopics.resultsPartition(CLIENT, 3));
        });
        assertThat(jsonLines(CliRun.of("outbox", "--bootstrap-servers", cluster.bootstrapServers(), "--client-id", "someone-else", "-o", "json")))
                .as("another client's outbox").isEmpty();
    }

    @Test
    void shouldDeadLetterACompletionForASiteNobodyDispatchedAndKeepItOutOfTheOutbox() throws Exception {
        SiteKey ghost = new SiteKey("outbox", "never-dispatched", "1");
        ActivityTask invented = ActivityTask.newBuilder().setSite(ghost.toRef()).setAttempt(1).setGeneration(1).setToken(CompletionToken.random().value())
                .setIdempotencyKey("k").setQueue("outbox-late").setActivityType("deaf").setHeartbeatWindowMillis(1_000L)
                .setScheduledAtMillis(0L).build();

        report(invented, WorkerEventKind.COMPLETED, "from nowhere");

        await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters().stream().anyMatch(d -> d.getReason().contains("unknown site " + ghost)));
        List<JsonNode> outbox = jsonLines(CliRun.of("outbox", "--bootstrap-servers", cluster.bootstrapServers(), "-o", "json"));
        assertThat(outbox).noneSatisfy(e -> assertThat(e.get("site").asText()).isEqualTo(ghost.asKey()));
    }

    private static List<JsonNode> jsonLines(CliRun run) throws Exception {
        assertThat(run.exit()).as(run.output()).isZero();
        List<JsonNode> out = new ArrayList<>();
        for (String line : run.output().split("\n")) {
            if (!line.isBlank()) {
                out.add(JSON.readTree(line));
            }
        }
        return out;
    }

    private static void report(ActivityTask task, WorkerEventKind kind, String output) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            WorkerEvent e = WorkerEvent.newBuilder().setKind(kind).setSite(task.getSite()).setAttempt(task.getAttempt())
                    .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId("deaf-worker")
                    .setOutput(output == null ? null : new Payload(ByteBuffer.wrap(output.getBytes(UTF_8)), "text/plain"))
                    .setAtMillis(0L).build();
            producer.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, SiteKey.of(task.getSite()).toBytes(),
                    EventSerde.of(WorkerEvent.class, registry).encode(BatonTopics.WORKER_EVENTS, e))).get();
        }
    }

    private static ActivityTask awaitTask(String queue, SiteKey site) {
        ActivityTask[] found = new ActivityTask[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
                EventSerde<ActivityTask> serde = EventSerde.of(ActivityTask.class, registry);
                for (ConsumerRecord<byte[], byte[]> r : TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks(queue))) {
                    ActivityTask t = serde.decode(r);
                    if (SiteKey.of(t.getSite()).equals(site)) {
                        found[0] = t;
                        return true;
                    }
                }
                return false;
            }
        });
        return found[0];
    }

    private static void awaitHistory(SiteKey site, HistoryKind kind) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
                EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
                return TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.HISTORY).stream().map(serde::decode)
                        .anyMatch(e -> e.getKind() == kind && SiteKey.of(e.getSite()).equals(site));
            }
        });
    }

    private static List<DeadLetter> deadLetters() {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            EventSerde<DeadLetter> serde = EventSerde.of(DeadLetter.class, registry);
            return TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.DLQ).stream().map(serde::decode).toList();
        }
    }
}
