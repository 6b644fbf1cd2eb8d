package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryKind;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Left open by the recovery round (adv22o) and fixed on merge: a cancel names a site, not a run. A cancel the streams app
 * dead-lettered (say it could not decode it while the registry was away), replayed by {@code baton dlq replay} after the
 * site was dispatched again under another request, cancelled that new run, which nobody asked to cancel. The letter here
 * is written as the streams app would have, for a cancel record really on {@code baton.dispatch} (so it passes the
 * source check), at a time between the first run's end and the second run's dispatch.
 */
class Adv22oLateCancelIT {

    @Test
    void shouldNotReplayACancelOfASiteDispatchedAgainAfterItWasDeadLettered() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(2, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            DispatchClient client = cluster.client("late-cancel", o -> { });
            SiteKey site = new SiteKey("shop", "order-7", "charge");
            // Run 1: no worker serves q, so it waits until cancelled.
            CompletableFuture<ActivityOutcome> first = client.dispatch(ActivityRequest.builder().site("shop", "order-7", "charge")
                    .queue("q").activityType("charge").input("1".getBytes(UTF_8), "text/plain").build());
            client.cancel(site).get(60, TimeUnit.SECONDS);
            assertThat(first.get(60, TimeUnit.SECONDS).reason()).startsWith("cancelled:");
            ConsumerRecord<byte[], byte[]> cancelRecord = cancelOf(cluster, registry, site);
            long deadLettered = System.currentTimeMillis();

            // A new run of the same site (attempt 2, as a caller starts one after a resolved attempt): live, waiting for a worker.
            CompletableFuture<ActivityOutcome> second = client.dispatch(ActivityRequest.builder().site("shop", "order-7", "charge")
                    .attempt(2).queue("q").activityType("charge").input("2".getBytes(UTF_8), "text/plain").build());
            await().atMost(Duration.ofSeconds(60)).until(() -> dispatches(cluster) == 2);

            DeadLetter letter = DeadLetter.newBuilder().setSourceTopic(BatonTopics.DISPATCH).setSourcePartition(cancelRecord.partition())
                    .setSourceOffset(cancelRecord.offset()).setKey(ByteBuffer.wrap(cancelRecord.key()))
                    .setValue(ByteBuffer.wrap(cancelRecord.value())).setReason("undecodable: schema registry unavailable")
                    .setProcess("streams-app 0_0").setAtMillis(deadLettered).build();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(BatonTopics.DLQ, site.toBytes(), EventSerde.of(DeadLetter.class, registry)
                        .encode(BatonTopics.DLQ, letter))).get(30, TimeUnit.SECONDS);
            }

            CliRun replay = CliRun.of("dlq", "replay", "--all", "--bootstrap-servers", cluster.bootstrapServers());
            assertThat(replay.exit()).as(replay.output()).isZero();
            assertThat(replay.output()).contains("0 replayed").contains("was dispatched again");
            assertThat(second).as("the second run was not cancelled").isNotDone();
        }
    }

    /** How many runs of order-7 history shows dispatched: a log reads up to the ends it found when opened, so one per look. */
    private static long dispatches(LocalCluster cluster) {
        try (HistoryLog history = new HistoryLog(cluster.clientConfig(), "kafka://" + cluster.bootstrapServers(), 1)) {
            return history.workflow("order-7", "shop").stream().filter(e -> e.getKind() == HistoryKind.DISPATCHED).count();
        }
    }

    /** The cancel record of {@code site} on {@code baton.dispatch}. */
    private static ConsumerRecord<byte[], byte[]> cancelOf(LocalCluster cluster, SchemaRegistry registry, SiteKey site) {
        EventSerde<DispatchCommand> serde = EventSerde.of(DispatchCommand.class, registry);
        AtomicReference<ConsumerRecord<byte[], byte[]>> found = new AtomicReference<>();
        TopicScan.forEach(cluster.clientConfig(), BatonTopics.DISPATCH, p -> true, r -> {
            if (new String(r.key(), UTF_8).equals(new String(site.toBytes(), UTF_8))
                    && serde.decode(BatonTopics.DISPATCH, r.value()).getKind() == DispatchKind.CANCEL) {
                found.set(r);
            }
        });
        assertThat(found.get()).as("the cancel on " + BatonTopics.DISPATCH).isNotNull();
        return found.get();
    }
}
