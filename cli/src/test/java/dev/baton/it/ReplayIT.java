package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Recovery from lost streams-app state: sites that were waiting when the state (local stores and
 * changelogs) was wiped are found by {@code baton replay} and re-dispatched; they then complete
 * exactly once, answering the original callers, while already-resolved sites are left alone.
 */
class ReplayIT {

    private static final int WAITING = 200;
    private static final int RESOLVED = 50;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of("later", "now"));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void shouldRestoreEveryUnresolvedSiteAfterTheStreamsStateIsWipedAndCompleteEachExactlyOnce() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        cluster.worker(worker("now-worker", "now", runs));
        DispatchClient client = cluster.client("replay-client", o -> { });
        List<CompletableFuture<ActivityOutcome>> resolved = new ArrayList<>();
        for (int i = 0; i < RESOLVED; i++) {
            resolved.add(client.dispatch(request("done-" + i, "now")));
        }
        CompletableFuture.allOf(resolved.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        List<CompletableFuture<ActivityOutcome>> waiting = new ArrayList<>();
        for (int i = 0; i < WAITING; i++) {
            waiting.add(client.dispatch(request("wait-" + i, "later")));
        }
        // Every waiting site's task is out: the streams app has decided, nobody serves the queue yet.
        await().atMost(Duration.ofSeconds(60)).until(() -> TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("later")).size() >= WAITING);

        cluster.wipeStreamsState();

        CliRun report = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(report.exit()).as(report.output()).isZero();
        assertThat(report.output()).contains((WAITING + RESOLVED) + " dispatched: " + RESOLVED + " resolved, 0 live in the streams app, "
                + WAITING + " dangling");

        CliRun redispatch = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--redispatch", "--threads", "1");
        assertThat(redispatch.output()).contains("re-sent " + WAITING + " dispatch commands");

        cluster.worker(worker("later-worker", "later", runs));
        CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        for (int i = 0; i < WAITING; i++) {
            ActivityOutcome o = waiting.get(i).get();
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(o.outputAsString()).isEqualTo("done wait-" + i);
        }
        assertThat(runs.keySet().stream().filter(k -> k.startsWith("done-"))).hasSize(RESOLVED)
                .allSatisfy(k -> assertThat(runs.get(k)).as("resolved sites are not re-run").hasValue(1));

        CliRun after = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(after.output()).contains(" 0 dangling");
        InvariantChecker.Report audit = InvariantChecker.check(cluster.bootstrapServers());
        assertThat(audit.violations()).as(audit.toString()).isEmpty();

        CliRun stats = CliRun.of("history", "stats", "--by", "queue", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(stats.exit()).isZero();
        assertThat(stats.output()).containsPattern("later\\s+" + WAITING + "\\s").containsPattern("now\\s+" + RESOLVED + "\\s");
        CliRun timeline = CliRun.of("history", "--workflow", "wait-7", "--bootstrap-servers", cluster.bootstrapServers());
        assertThat(timeline.output()).contains("DISPATCHED", "COMPLETED");
    }

    private static ActivityRequest request(String workflow, String queue) {
        return ActivityRequest.builder().site("replay", workflow, "step").queue(queue).activityType("echo")
                .input(workflow.getBytes(UTF_8), "text/plain").build();
    }

    private static WorkerOptions.Builder worker(String id, String queue, Map<String, AtomicInteger> runs) {
        return WorkerOptions.builder().workerId(id).queues(queue).maxConcurrent(16).handler("echo", (ctx, input) -> {
            String wf = ctx.site().workflowId();
            runs.computeIfAbsent(wf, k -> new AtomicInteger()).incrementAndGet();
            return ("done " + new String(input, UTF_8)).getBytes(UTF_8);
        });
    }
}
