package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafka;

/**
 * An adversary of the {@link FetchReader}'s cancellation (issue 30, h/adv40). The contract: a scan is cancelled
 * promptly once its flag turns true, as through the consumer (whose cursor checks it after every poll of 200 ms),
 * also while a fetch cannot complete (the broker is gone).
 */
@Timeout(300)
class Adv40FetchReaderCancelIT {

    private static final String TOPIC = "adv40-cancel-broker-gone";
    private static final Duration STALL = Duration.ofSeconds(60);

    /**
     * What the reader does (expected): it checks the flag only between fetches, and a fetch whose broker is gone
     * retries (metadata refreshes, connection attempts) until the stall limit, so the cancellation waits for the
     * stall limit (90 s in a scan) where the consumer's cursor answers it within a poll.
     */
    @Test
    void aScanWhoseBrokerIsGoneIsCancelledAsPromptlyAsThroughTheConsumer() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(kafka.adminConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 10; i++) {
                p.send(new ProducerRecord<>(TOPIC, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        Map<String, Object> config = ScanConsumers.readerConfig(kafka.adminConfig());
        FetchReader reader = new FetchReader(config, STALL);
        PartitionCursor cursor = new PartitionCursor(new KafkaConsumer<>(config, new ByteBufferDeserializer(), new ByteBufferDeserializer()), null);
        try {
            OffsetRange first = new OffsetRange(TOPIC, 0, 0, 10);
            assertEquals(10, reader.scan(first, r -> { }, () -> false));
            assertEquals(10, cursor.scan(first, r -> { }, () -> false));
            kafka.close();

            OffsetRange more = new OffsetRange(TOPIC, 0, 10, 20);
            long consumerMs = cancelledWithin(cancelled -> cursor.scan(more, r -> { }, cancelled::get));
            System.out.println("adv40: cancelled 1 s into a scan of a stopped broker: the consumer's cursor threw " + consumerMs + " ms after");
            long readerMs = cancelledWithin(cancelled -> reader.scan(more, r -> { }, cancelled::get));
            System.out.println("adv40: cancelled 1 s into a scan of a stopped broker: the fetch reader threw " + readerMs + " ms after");
        } finally {
            reader.close();
            cursor.close();
        }
    }

    private interface Scan {
        void run(AtomicBoolean cancelled);
    }

    /** Ms from the flag turning true (1 s into the scan) to the scan's CancellationException; fails past 20 s. */
    private static long cancelledWithin(Scan scan) {
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicLong at = new AtomicLong();
        CompletableFuture.runAsync(() -> {
            at.set(System.nanoTime());
            cancelled.set(true);
        }, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(CancellationException.class, () -> scan.run(cancelled)),
                "a scan cancelled 1 s in, its broker gone");
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - at.get());
    }
}
