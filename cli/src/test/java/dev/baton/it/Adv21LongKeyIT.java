package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
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
 * Adversary (adv21): a dispatch record whose key is a 600,000-byte site key while its value names a short site.
 * The record is 600 KB, which the broker accepts. The streams app takes the site from the key and never checks
 * the value's site against it (nor bounds a site key's length), then writes the key into the task record twice
 * (as its key, and as the task's {@code site} field): 1.2 MB, over {@code max.request.size}. The send fails, the
 * stream thread dies, the replacement reads the same dispatch again and dies again: every caller on that
 * partition waits forever. Contract: no input record kills or blocks a stream thread.
 */
class Adv21LongKeyIT {

    @Test
    void aDispatchWithAHugeKeyDoesNotBlockItsPartition() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4)
                    .handler("echo", (ctx, input) -> input));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv21-key", unmatched::add);
            assertThat(client.dispatch(request("before")).get(60, TimeUnit.SECONDS).completed()).isTrue();

            SiteKey huge = new SiteKey("adv21", "key", "a".repeat(600_000));
            DispatchCommand command = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED)
                    .setSite(new SiteRef("adv21", "key", "short"))
                    .setRequestId("adv21-key-1").setReplyKey("adv21-key").setAttempt(1).setIdempotencyKey("idem-key")
                    .setQueue("q").setActivityType("echo")
                    .setInput(new Payload(ByteBuffer.wrap("x".getBytes(UTF_8)), "text/plain"))
                    .setRequestedAtMillis(System.currentTimeMillis()).build();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(BatonTopics.DISPATCH, huge.toBytes(),
                        EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, command))).get(30, TimeUnit.SECONDS);
            }

            CompletableFuture<ActivityOutcome> after = client.dispatch(request("after"));
            ActivityOutcome outcome = after.get(60, TimeUnit.SECONDS);
            assertThat(outcome.completed()).as("the dispatch after the huge key: %s", outcome).isTrue();
        }
    }

    /**
     * The same from a worker: any principal that may write {@code baton.worker-events} (every worker) sends a heartbeat
     * keyed by a 600,000-byte site key naming a short site in its value. The site is unknown, so the report is refused,
     * and the refusal's history event carries the key twice (key and {@code site} field): over 1 MiB, same loop.
     */
    @Test
    void aWorkerEventWithAHugeKeyDoesNotBlockItsPartition() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4)
                    .handler("echo", (ctx, input) -> input));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv21-key", unmatched::add);
            assertThat(client.dispatch(request("before")).get(60, TimeUnit.SECONDS).completed()).isTrue();

            SiteKey huge = new SiteKey("adv21", "key", "w".repeat(600_000));
            WorkerEvent event = WorkerEvent.newBuilder().setKind(WorkerEventKind.HEARTBEAT).setSite(new SiteRef("adv21", "key", "short"))
                    .setAttempt(1).setGeneration(1).setToken("A".repeat(CompletionToken.LENGTH)).setWorkerId("hostile")
                    .setAtMillis(System.currentTimeMillis()).build();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, huge.toBytes(),
                        EventSerde.of(WorkerEvent.class, registry).encode(BatonTopics.WORKER_EVENTS, event))).get(30, TimeUnit.SECONDS);
            }

            ActivityOutcome outcome = client.dispatch(request("after")).get(60, TimeUnit.SECONDS);
            assertThat(outcome.completed()).as("the dispatch after the huge worker event key: %s", outcome).isTrue();
        }
    }

    private static ActivityRequest request(String activity) {
        return ActivityRequest.builder().site("adv21", "key", activity).queue("q").activityType("echo")
                .input(activity.getBytes(UTF_8), "text/plain").build();
    }
}
