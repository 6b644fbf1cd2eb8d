package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary round 22 (streams-app restarts), finding 3, the other direction of finding 1. An at-least-once streams app
 * with {@code max.payload.bytes=1000} refuses a 5,000-byte dispatch and answers its caller
 * {@code terminal: invalid dispatch: ...}; it is killed (kill -9) before it commits that input, and the operator restarts
 * it with the limit raised (here the default). The dispatch is read again, is now valid, and runs: the same request id
 * then gets {@code completed}, a second, different outcome (DESIGN §4 safety). adv22o fixed the same double answer when
 * the letter is replayed from the DLQ; here it needs only a crash and a config change. The same holds for any refusal the
 * site's row does not remember: an {@code unavailable: unknown queue} refusal read again after `baton topics create`.
 *
 * <p>Fixed: under at-least-once a refusal is remembered in the site's row, and a site with no row gets a refusal-only row
 * ({@code REFUSED}, forgotten after the dedupe window); the dispatch read again finds it and is refused again
 * ({@code DispatchRules.remember}). A crash that loses the refusal's row write but not its answer is still the limit of
 * at-least-once (docs/decisions.md).
 */
class Adv22sRaisedPayloadLimitIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String TOKEN_KEY = "YWR2MjJzLXJlc3RhcnRzLXRva2VuLWtleS0zMmJ5dGVz";

    @Test
    void aRequestRefusedBeforeTheLimitWasRaisedIsNotRunWhenReadAgain() throws Exception {
        String bootstrap = KAFKA.bootstrapServers();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q")));
        }
        List<String> alo = List.of("processing.guarantee=at_least_once", "token.key=" + TOKEN_KEY, "num.standby.replicas=0",
                "hanging.transaction.check.ms=0");
        List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
        Map<String, Object> clientConfig = new HashMap<>(ClientConfigs.bootstrap(bootstrap));
        clientConfig.put("baton.client.id", "adv22s-raised");
        AtomicInteger runs = new AtomicInteger();
        List<String> first = new java.util.ArrayList<>(alo);
        first.add("max.payload.bytes=1000");
        first.add("commit.interval.ms=600000"); // no input offset is committed before the kill
        BatonProcess small = BatonProcess.streamsApp(bootstrap, "adv22s-small", TempDirs.create("adv22s-s-"), first);
        try (Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(ClientConfigs.bootstrap(bootstrap)).workerId("adv22s-r")
                     .queues("q").handler("charge", (ctx, input) -> {
                         runs.incrementAndGet();
                         return "done".getBytes(UTF_8);
                     }).build());
             DispatchClient client = DispatchClient.create(clientConfig, unmatched::add)) {
            ActivityOutcome refused = client.dispatch(ActivityRequest.builder().site("shop", "order-8", "charge").queue("q")
                    .activityType("charge").input(new byte[5_000], "application/octet-stream").build()).get(90, TimeUnit.SECONDS);
            assertThat(refused.reason()).startsWith("terminal: invalid dispatch:");
            small.kill9();

            try (BatonProcess raised = BatonProcess.streamsApp(bootstrap, "adv22s-raised", TempDirs.create("adv22s-r-"), alo)) {
                // The dispatch read again leaves history: a republished refusal when it is right, a dispatch when it runs.
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> history(bootstrap).stream()
                        .anyMatch(e -> e.getKind() == HistoryKind.OUTCOME_REPUBLISHED || e.getKind() == HistoryKind.DISPATCHED));
                assertThat(history(bootstrap)).extracting(HistoryEvent::getKind).doesNotContain(HistoryKind.DISPATCHED);
            }
        } finally {
            small.close();
        }
        assertThat(runs.get()).as("runs of the refused request").isZero();
        assertThat(unmatched).as("one distinct outcome per request id; the refused request ran " + runs.get() + " time(s)")
                .extracting(o -> o.completed() + " " + o.reason()).isEmpty();
    }

    private static List<HistoryEvent> history(String bootstrap) {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + bootstrap, Map.of())) {
            EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
            return TopicScan.readAll(bootstrap, BatonTopics.HISTORY).stream().map(serde::decode)
                    .filter(e -> SiteKey.of(e.getSite()).equals(new SiteKey("shop", "order-8", "charge"))).toList();
        }
    }
}
