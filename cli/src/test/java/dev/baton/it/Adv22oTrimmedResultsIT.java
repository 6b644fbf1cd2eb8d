package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.SiteKey;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv22o): {@code baton topics create} keeps {@code baton.history} forever but gives {@code baton.results} the
 * broker's retention (7 days by default). Replay decided "answered" from {@code baton.results} alone, so once retention
 * trimmed a resolved site's outcome and the dedupe window had let the site's row go, replay called the site dangling, and
 * {@code --redispatch} ran a completed activity a second time, although its {@code COMPLETED} event sat in history.
 */
class Adv22oTrimmedResultsIT {

    private static final int PARTITIONS = 2;

    @Test
    void shouldNotRedispatchASiteWhoseOutcomeHistoryHoldsAfterRetentionTrimmedItsResult() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(PARTITIONS, List.of("q", "later"), Map.of("dedupe.window.ms", 500L))) {
            AtomicInteger runs = new AtomicInteger();
            cluster.worker(WorkerOptions.builder().workerId("w").queues("q").handler("charge", (ctx, input) -> {
                runs.incrementAndGet();
                return input;
            }));
            DispatchClient client = cluster.client("adv22o-trim", o -> { });
            ActivityOutcome done = client.dispatch(ActivityRequest.builder().site("shop", "order-1", "charge").queue("q")
                    .activityType("charge").input("1200".getBytes(UTF_8), "text/plain").build()).get(60, TimeUnit.SECONDS);
            assertThat(done.completed()).as(done.toString()).isTrue();
            assertThat(runs).hasValue(1);

            // A second site waits on a queue nobody serves: its task is out, then the streams app's state is lost.
            client.dispatch(ActivityRequest.builder().site("shop", "order-2", "step").queue("later").activityType("charge")
                    .input("7".getBytes(UTF_8), "text/plain").build());
            await().atMost(Duration.ofSeconds(60)).until(() -> TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("later")).size() == 1);
            // The dedupe window passes: the resolved row is deleted from the sites store (a tombstone in its changelog).
            String key = new String(new SiteKey("shop", "order-1", "charge").toBytes(), UTF_8);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                try (HistoryLog log = new HistoryLog(cluster.clientConfig(), "kafka://", 1)) {
                    return Boolean.FALSE.equals(log.liveSites("baton-streams").get(key));
                }
            });
            // baton.results' retention passes (7 days by default against history's forever): its records are deleted.
            trimResults(cluster.bootstrapServers());
            cluster.wipeStreamsState();

            CliRun report = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1");
            assertThat(report.exit()).as(report.output()).isZero();
            assertThat(report.output()).as("history holds the site's COMPLETED: it is not dangling").contains(" 1 dangling")
                    .contains("dangling  shop/order-2/step").doesNotContain("order-1");

            CliRun redispatch = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1", "--redispatch");
            assertThat(redispatch.output()).as(redispatch.output()).contains("re-sent 1 dispatch commands");
            // the waiting site's re-sent command is read, and nothing ran order-1 again
            AtomicInteger later = new AtomicInteger();
            cluster.worker(WorkerOptions.builder().workerId("w2").queues("later").handler("charge", (ctx, input) -> {
                later.incrementAndGet();
                return input;
            }));
            // (the task published before the wipe is still in the topic and runs too: its completion is unmatched)
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(later.get()).isGreaterThanOrEqualTo(1));
            assertThat(runs).as("a completed activity is never run again by recovery").hasValue(1);
        }
    }

    private static void trimResults(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                ends.put(new TopicPartition(BatonTopics.RESULTS, p), OffsetSpec.latest());
            }
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            admin.listOffsets(ends).all().get().forEach((tp, end) -> delete.put(tp, RecordsToDelete.beforeOffset(end.offset())));
            admin.deleteRecords(delete).all().get();
        }
    }
}
