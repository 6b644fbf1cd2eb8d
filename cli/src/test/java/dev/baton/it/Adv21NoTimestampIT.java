package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
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
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): a record on {@code baton.dispatch} (or {@code baton.worker-events}) whose timestamp is
 * {@code -1} ({@code RecordBatch.NO_TIMESTAMP}). The broker accepts it under {@code CreateTime} (it checks only
 * timestamps other than -1), any client that writes the v2 format without a timestamp produces one (the Java
 * producer refuses to build it, so the test sets the field by reflection: the bytes on the wire are what a
 * non-Java client sends). Kafka Streams' default {@code FailOnInvalidTimestamp} throws on it before the
 * processor sees it: the stream thread dies, {@code REPLACE_THREAD} starts another that reads the same record
 * from the committed offset and dies again. Every site of that partition waits forever: a later, valid
 * dispatch to it is never answered. The contract: no input record kills or blocks a stream thread; corrupt
 * input goes to baton.dlq with a reason.
 */
class Adv21NoTimestampIT {

    @Test
    void aDispatchRecordWithoutATimestampDoesNotBlockItsPartition() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(1, List.of("q"));
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
            cluster.worker(WorkerOptions.builder().workerId("w1").queues("q").maxConcurrent(4)
                    .handler("echo", (ctx, input) -> input));
            List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();
            DispatchClient client = cluster.client("adv21-ts", unmatched::add);
            // The cluster works.
            assertThat(client.dispatch(request("before")).get(60, TimeUnit.SECONDS).completed()).isTrue();

            SiteKey poison = new SiteKey("adv21", "ts", "poison");
            DispatchCommand command = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(poison.toRef())
                    .setRequestId("adv21-poison-1").setReplyKey("adv21-ts").setAttempt(1).setIdempotencyKey("idem-poison")
                    .setQueue("q").setActivityType("echo")
                    .setInput(new Payload(ByteBuffer.wrap("x".getBytes(UTF_8)), "text/plain"))
                    .setRequestedAtMillis(System.currentTimeMillis()).build();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(BatonTopics.DISPATCH, poison.toBytes(),
                        EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, command));
                Field timestamp = ProducerRecord.class.getDeclaredField("timestamp");
                timestamp.setAccessible(true);
                timestamp.set(record, ConsumerRecord.NO_TIMESTAMP); // -1: "no timestamp" in the v2 record format
                producer.send(record).get(30, TimeUnit.SECONDS);
            }

            // A valid dispatch to the same (only) partition, after the record without a timestamp.
            CompletableFuture<ActivityOutcome> after = client.dispatch(request("after"));
            ActivityOutcome outcome = after.get(60, TimeUnit.SECONDS);
            assertThat(outcome.completed()).as("the dispatch after the record without a timestamp: %s", outcome).isTrue();
        }
    }

    private static ActivityRequest request(String activity) {
        return ActivityRequest.builder().site("adv21", "ts", activity).queue("q").activityType("echo")
                .input(activity.getBytes(UTF_8), "text/plain").build();
    }
}
