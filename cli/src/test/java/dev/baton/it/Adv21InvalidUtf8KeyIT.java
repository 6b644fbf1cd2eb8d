package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): a dispatch whose key is not valid UTF-8 (a non-Java client writing raw key bytes). The
 * streams app decodes the key lossily ({@code SiteKey.fromBytes}: each bad byte becomes U+FFFD), so the site's
 * row, its task and every record the worker writes for it carry the re-encoded key, whose murmur2 partition is
 * not the one the dispatch was read from (which {@code PartitionCheck} checked on the raw bytes, and passed). The
 * task runs; the worker's lease and completion land on another task, which does not know the site ("site unknown",
 * the completion dead-lettered). The site stays pending for good, and the caller that the dispatch named is never
 * answered. Contract: corrupt input goes to baton.dlq with a reason, and a dispatch's caller gets one outcome.
 */
class Adv21InvalidUtf8KeyIT {

    private static final int PARTITIONS = 3;

    @Test
    void aDispatchWhoseKeyIsNotUtf8IsAnswered() throws Exception {
        byte[] rawKey = misplacedKey();
        try (LocalCluster cluster = LocalCluster.start(PARTITIONS, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            AtomicInteger runs = new AtomicInteger();
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4)
                    .handler("echo", (ctx, input) -> {
                        runs.incrementAndGet();
                        return input;
                    }));
            List<ActivityOutcome> outcomes = new CopyOnWriteArrayList<>();
            cluster.client("adv21-utf8", outcomes::add);

            DispatchCommand command = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED)
                    .setSite(new SiteRef("adv21", "utf8", new String(rawKey, UTF_8).substring("adv21/utf8/".length())))
                    .setRequestId("adv21-utf8-1").setReplyKey("adv21-utf8").setAttempt(1).setIdempotencyKey("idem-utf8")
                    .setQueue("q").setActivityType("echo")
                    .setInput(new Payload(ByteBuffer.wrap("x".getBytes(UTF_8)), "text/plain"))
                    .setRequestedAtMillis(System.currentTimeMillis()).build();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                int written = producer.send(new ProducerRecord<>(BatonTopics.DISPATCH, rawKey,
                        EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, command))).get(30, TimeUnit.SECONDS)
                        .partition();
                assertThat(written).as("the default (murmur2) partitioner put it where its raw key belongs").isEqualTo(partition(rawKey));
            }

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(outcomes)
                    .as("the outcome of the dispatch whose key is not UTF-8 (the handler ran %d time(s))", runs.get())
                    .anySatisfy(o -> assertThat(o.requestId()).isEqualTo("adv21-utf8-1")));
        }
    }

    /** A key {@code adv21/utf8/a<i><0xC3>} (0xC3 alone is no UTF-8) whose re-encoded form maps to another partition. */
    private static byte[] misplacedKey() {
        for (int i = 0; ; i++) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(("adv21/utf8/a" + i).getBytes(UTF_8));
            b.write(0xC3);
            byte[] raw = b.toByteArray();
            byte[] reencoded = new String(raw, UTF_8).getBytes(UTF_8);
            if (partition(raw) != partition(reencoded)) {
                return raw;
            }
        }
    }

    private static int partition(byte[] key) {
        return Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
    }
}
