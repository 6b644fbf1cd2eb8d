package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv22o): a worker may write {@code baton.dlq} (it dead-letters undecodable tasks, DESIGN §10) but not
 * {@code baton.dispatch}. {@code baton dlq replay} re-published any letter naming {@code baton.dispatch} as its source,
 * taking the letter's word for the bytes. A worker's forged letter holding a {@code CANCEL} of another caller's site
 * was put on {@code baton.dispatch} by an operator's routine {@code dlq replay --all}, under the operator's principal: the
 * caller got {@code cancelled:} from a principal that may not cancel. A letter is now replayed only when its source record
 * is still where it says, with the same key and value.
 */
class Adv22oForgedDeadLetterIT {

    private static final int PARTITIONS = 2;

    @Test
    void shouldNotReplayADeadLetterWhoseSourceRecordIsNotWhereItSays() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(PARTITIONS, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            DispatchClient client = cluster.client("victim", o -> { });
            SiteKey site = new SiteKey("shop", "order-9", "charge");
            CompletableFuture<ActivityOutcome> victim = client.dispatch(ActivityRequest.builder().site("shop", "order-9", "charge")
                    .queue("q").activityType("charge").input("1".getBytes(UTF_8), "text/plain").build());

            DispatchCommand cancel = DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(site.toRef())
                    .setRequestId("forged-cancel").setReplyKey("attacker").setAttempt(1).setRequestedAtMillis(System.currentTimeMillis()).build();
            int partition = Utils.toPositive(Utils.murmur2(site.toBytes())) % PARTITIONS;
            DeadLetter forged = DeadLetter.newBuilder().setSourceTopic(BatonTopics.DISPATCH).setSourcePartition(partition).setSourceOffset(0)
                    .setKey(ByteBuffer.wrap(site.toBytes()))
                    .setValue(ByteBuffer.wrap(EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, cancel)))
                    .setReason("undecodable: forged by a worker").setProcess("worker-7").setAtMillis(System.currentTimeMillis()).build();
            try (KafkaProducer<byte[], byte[]> worker = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
                worker.send(new ProducerRecord<>(BatonTopics.DLQ, site.toBytes(), EventSerde.of(DeadLetter.class, registry)
                        .encode(BatonTopics.DLQ, forged))).get(30, TimeUnit.SECONDS);
            }

            CliRun replay = CliRun.of("dlq", "replay", "--all", "--bootstrap-servers", cluster.bootstrapServers());
            assertThat(replay.exit()).as(replay.output()).isZero();
            assertThat(replay.output()).contains("0 replayed").contains("skipped: " + BatonTopics.DISPATCH + "/" + partition + "@0 does not hold");
            AtomicInteger copies = new AtomicInteger();
            TopicScan.forEach(cluster.clientConfig(), BatonTopics.DISPATCH, p -> true, r -> {
                if (r.headers().lastHeader("baton.dlq.origin") != null) {
                    copies.incrementAndGet();
                }
            });
            assertThat(copies).as("nothing was put on baton.dispatch").hasValue(0);
            assertThat(victim).isNotDone();
        }
    }
}
