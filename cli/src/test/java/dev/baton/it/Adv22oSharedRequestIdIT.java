package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.cli.CliRun;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv22o): replay matched a site's latest request to its answer, and re-sent its command, by request id alone.
 * A request id is chosen by the dispatcher (any principal that may write {@code baton.dispatch}; a client in another
 * language, docs/protocol.md) and authorizes nothing. A second site dispatched under the same request id (by mistake, or
 * on purpose) and answered made the first, dangling site count as resolved: after lost state, replay never re-sent it, and
 * its caller was never answered. And {@code --redispatch} picked one command per request id, so it could re-send the
 * other site's command instead (running that resolved activity again) and not the dangling one.
 */
class Adv22oSharedRequestIdIT {

    @Test
    void shouldFindADanglingSiteWhoseRequestIdAnotherSiteReusedAndWasAnsweredUnder() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(2, List.of("now", "later"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
            cluster.worker(WorkerOptions.builder().workerId("now-worker").queues("now").handler("echo", (ctx, input) -> {
                runs.computeIfAbsent(ctx.site().workflowId(), k -> new AtomicInteger()).incrementAndGet();
                return input;
            }));
            cluster.client("victim", o -> { });
            EventSerde<DispatchCommand> serde = EventSerde.of(DispatchCommand.class, registry);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                // the victim's site waits on a queue nobody serves yet
                send(producer, serde, new SiteKey("shop", "victim", "charge"), "later", "shared-request", "victim");
                await().atMost(Duration.ofSeconds(60)).until(() -> TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("later")).size() == 1);
                // another site, under the same request id, runs and is answered
                send(producer, serde, new SiteKey("shop", "other", "charge"), "now", "shared-request", "other-caller");
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> runs.containsKey("other")
                    && TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.RESULTS).size() == 1);

            cluster.wipeStreamsState();

            CliRun report = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1");
            assertThat(report.exit()).as(report.output()).isZero();
            assertThat(report.output()).as("the victim's request was never answered").contains("1 resolved", " 1 dangling")
                    .contains("dangling  shop/victim/charge");

            CliRun redispatch = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1", "--redispatch");
            assertThat(redispatch.output()).as(redispatch.output()).contains("re-sent 1 dispatch commands");
            AtomicInteger victimRuns = new AtomicInteger();
            cluster.worker(WorkerOptions.builder().workerId("later-worker").queues("later").handler("echo", (ctx, input) -> {
                victimRuns.incrementAndGet();
                return input;
            }));
            await().atMost(Duration.ofSeconds(60)).until(() -> victimRuns.get() >= 1);
            assertThat(runs.get("other")).as("the answered site is not run again").hasValue(1);
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, EventSerde<DispatchCommand> serde, SiteKey site, String queue,
                             String requestId, String replyKey) throws Exception {
        DispatchCommand command = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(site.toRef())
                .setRequestId(requestId).setReplyKey(replyKey).setAttempt(1).setIdempotencyKey("idem-" + site.workflowId())
                .setQueue(queue).setActivityType("echo")
                .setInput(new Payload(ByteBuffer.wrap("hi".getBytes(UTF_8)), "text/plain"))
                .setRequestedAtMillis(System.currentTimeMillis()).build();
        producer.send(new ProducerRecord<>(BatonTopics.DISPATCH, site.toBytes(), serde.encode(BatonTopics.DISPATCH, command))).get(30, TimeUnit.SECONDS);
    }
}
