package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.CliRun;
import dev.baton.cli.DemoHandlers;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.SiteKey;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every operator command against a running cluster: one broker, the streams app with its query port, a worker on queue "ops". */
class OperatorCommandsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalCluster cluster;
    private static DispatchClient client;
    private static int port;
    private static dev.baton.worker.Worker worker;

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        cluster = LocalCluster.start(3, List.of("ops", "idle"), Map.of("status.port", port));
        WorkerOptions.Builder worker = WorkerOptions.builder().workerId("ops-worker").queues("ops").maxConcurrent(4);
        DemoHandlers.all().forEach(worker::handler);
        OperatorCommandsIT.worker = cluster.worker(worker);
        client = cluster.client("ops-client", o -> { });
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static String streamsApp() {
        return "--streams-app=http://127.0.0.1:" + port;
    }

    private static JsonNode json(CliRun run) throws Exception {
        return JSON.readTree(run.printed());
    }

    @Test
    void shouldDescribeAResolvedSiteWithItsOutcomeAndCallers() throws Exception {
        ActivityOutcome done = client.dispatch(ActivityRequest.builder().site("ops", "described", "1").queue("ops").activityType("echo")
                .input("hi".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);

        CliRun run = CliRun.of("site", "describe", "ops/described/1", streamsApp(), "-o", "json");
        assertThat(run.exit()).as(run.output()).isZero();
        JsonNode site = json(run);
        assertThat(site.get("state").asText()).isEqualTo("RESOLVED");
        assertThat(site.get("queue").asText()).isEqualTo("ops");
        assertThat(site.get("activityType").asText()).isEqualTo("echo");
        assertThat(site.get("attempt").asInt()).isEqualTo(1);
        assertThat(site.get("generation").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(site.get("lastOutcome").get("status").asText()).isEqualTo("COMPLETED");
        assertThat(site.get("callers")).extracting(c -> c.get("requestId").asText()).contains(done.requestId());
        assertThat(site.get("deadlines").has("EXPIRE")).as("kept for the dedupe window").isTrue();

        CliRun table = CliRun.of("site", "describe", "ops/described/1", streamsApp());
        assertThat(table.exit()).isZero();
        assertThat(table.output()).contains("state", "RESOLVED", "last outcome", "COMPLETED", done.requestId());
    }

    @Test
    void shouldPrintTheFailureAWorkerReportedWithItsStackOnRequest() {
        CliRun run = CliRun.of("dispatch", "--queue", "ops", "--type", "terminal", "--namespace", "ops", "--workflow", "failing", "--input", "x",
                "--stack", "--bootstrap-servers", cluster.bootstrapServers());

        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.printed()).contains("failed: terminal: this activity always fails",
                "  failure: dev.baton.worker.TerminalActivityException: this activity always fails")
                .containsPattern("\\n {6}at dev\\.baton\\.cli\\.DemoHandlers");

        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            CliRun history = CliRun.of("history", "--workflow", "failing", "--namespace", "ops", "--bootstrap-servers", cluster.bootstrapServers());
            assertThat(history.printed()).contains("FAILED", "      failure: dev.baton.worker.TerminalActivityException: this activity always fails")
                    .doesNotContain("at dev.baton.cli.DemoHandlers");
        });
    }

    @Test
    void shouldAnswerOneForASiteBatonDoesNotHold() {
        assertThat(CliRun.of("site", "describe", "ops/never/1", streamsApp()).exit()).isEqualTo(1);
        assertThat(CliRun.of("site", "describe", "not-a-site", streamsApp()).exit()).as("three parts required").isEqualTo(2);
    }

    @Test
    void shouldListSitesByStateAndQueue() throws Exception {
        client.dispatch(ActivityRequest.builder().site("ops", "waiting", "1").queue("idle").activityType("echo").build());
        client.dispatch(ActivityRequest.builder().site("ops", "listed", "1").queue("ops").activityType("echo").build()).get(60, TimeUnit.SECONDS);

        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            CliRun run = CliRun.of("sites", "list", "--state", "unserved", "--queue", "idle", streamsApp(), "-o", "json");
            assertThat(run.exit()).as(run.output()).isZero();
            assertThat(json(run).get("sites")).extracting(s -> s.get("site").asText()).containsExactly("ops/waiting/1");
        });
        CliRun resolved = CliRun.of("sites", "list", "--queue", "ops", "--state", "RESOLVED", streamsApp());
        assertThat(resolved.exit()).isZero();
        assertThat(resolved.output()).contains("ops/listed/1", "RESOLVED").doesNotContain("ops/waiting/1");
    }

    @Test
    void shouldCancelALiveSiteAndAnswerWithItsCancelledOutcome() throws Exception {
        CompletableFuture<ActivityOutcome> running = client.dispatch(ActivityRequest.builder().site("ops", "cancelled", "1").queue("ops")
                .activityType("long").input("60000".getBytes(UTF_8), "text/plain").build());
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            CliRun d = CliRun.of("site", "describe", "ops/cancelled/1", streamsApp(), "-o", "json");
            assertThat(d.exit()).as(d.output()).isZero();
            assertThat(json(d).get("state").asText()).isEqualTo("LEASED");
            assertThat(json(d).get("leaseHolder").asText()).isEqualTo("ops-worker");
        });

        CliRun cancel = CliRun.of("cancel", "ops/cancelled/1", "--bootstrap-servers", cluster.bootstrapServers(), streamsApp(), "-o", "json");
        assertThat(cancel.exit()).as(cancel.output()).isZero();
        assertThat(json(cancel).get("result").asText()).isEqualTo("cancelled");
        assertThat(json(cancel).get("detail").asText()).startsWith("cancelled:");
        assertThat(running.get(30, TimeUnit.SECONDS).reason()).startsWith("cancelled:");

        CliRun again = CliRun.of("cancel", "ops/cancelled/1", "--bootstrap-servers", cluster.bootstrapServers(), streamsApp());
        assertThat(again.exit()).as("nothing live to cancel").isEqualTo(1);
        assertThat(again.output()).contains("nothing-live");
    }

    @Test
    void shouldListDeadLettersAndReplayEachOnce() throws Exception {
        SiteKey site = new SiteKey("ops", "corrupt", "1");
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", cluster.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            p.send(new ProducerRecord<>(BatonTopics.DISPATCH, site.toBytes(), new byte[] {7, 1, 2, 3})).get();
        }
        JsonNode letter = Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> deadLettersOf(site).stream().findFirst().orElse(null),
                l -> l != null);
        assertThat(letter.get("sourceTopic").asText()).isEqualTo(BatonTopics.DISPATCH);
        assertThat(letter.get("reason").asText()).isNotBlank();
        assertThat(letter.get("replayed").asBoolean()).isFalse();
        String position = letter.get("dlqPartition").asInt() + ":" + letter.get("dlqOffset").asLong();

        CliRun dry = CliRun.of("dlq", "replay", "--dlq-offset", position, "--dry-run", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(dry.exit()).as(dry.output()).isZero();
        assertThat(dry.output()).contains("would replay");
        assertThat(replayedCopies(position)).as("a dry run publishes nothing").isZero();

        CliRun first = CliRun.of("dlq", "replay", "--dlq-offset", position, "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(first.output()).contains(position, "replayed", "1 replayed");
        CliRun second = CliRun.of("dlq", "replay", "--dlq-offset", position, "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(second.exit()).as(second.output()).isZero();
        assertThat(second.output()).contains("already replayed", "0 replayed");
        assertThat(replayedCopies(position)).isEqualTo(1);

        CliRun listed = CliRun.of("dlq", "list", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(listed.exit()).isZero();
        assertThat(listed.output()).contains(position, BatonTopics.DISPATCH, "yes");
        assertThat(CliRun.of("dlq", "replay", "--bootstrap-servers", cluster.bootstrapServers()).exit()).as("a selection is required")
                .isEqualTo(2);
    }

    @Test
    void shouldServeHealthAndReadinessBesideTheQueries() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of("/health", "/ready")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
        }
        int workerPort;
        try (ServerSocket s = new ServerSocket(0)) {
            workerPort = s.getLocalPort();
        }
        try (dev.baton.cli.ProcessEndpoint endpoint = new dev.baton.cli.ProcessEndpoint(workerPort).readiness(worker::isReady)) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + workerPort + "/ready")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("a worker whose consumers joined their groups is ready").isEqualTo(200));
        }
        CliRun status = CliRun.of("status", streamsApp());
        assertThat(status.exit()).as(status.output()).isZero();
        assertThat(status.output()).contains("streams app RUNNING, 1 instance(s)", "ops-worker", "LAG");
    }

    private static List<JsonNode> deadLettersOf(SiteKey site) throws Exception {
        CliRun run = CliRun.of("dlq", "list", "--bootstrap-servers", cluster.bootstrapServers(), "-o", "json");
        assertThat(run.exit()).as(run.output()).isZero();
        List<JsonNode> letters = new java.util.ArrayList<>();
        for (String line : run.printed().split("\n")) {
            if (!line.isBlank()) {
                letters.add(JSON.readTree(line));
            }
        }
        return letters.stream().filter(l -> site.asKey().equals(l.path("key").asText())).toList();
    }

    /** Records on baton.dispatch that are replays of the dead letter at {@code position}. */
    private static int replayedCopies(String position) {
        AtomicInteger copies = new AtomicInteger();
        String origin = BatonTopics.DLQ + "/" + position.replace(':', '@');
        TopicScan.forEach(Map.of("bootstrap.servers", cluster.bootstrapServers()), BatonTopics.DISPATCH, p -> true, r -> {
            var h = r.headers().lastHeader("baton.dlq.origin");
            if (h != null && origin.equals(new String(h.value(), UTF_8))) {
                copies.incrementAndGet();
            }
        });
        return copies.get();
    }
}
