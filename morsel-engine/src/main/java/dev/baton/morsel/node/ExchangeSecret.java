package dev.baton.morsel.node;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A job's secret, which makes its steps its own. An engine node runs whatever step reaches queue {@value EngineNode#QUEUE},
 * and whoever may write {@code baton.dispatch} can send one: without a secret a dispatcher-only principal had a node
 * aggregate a topic it may not read and hand it the answer (h/adv23e, the engine node as a confused deputy). The job
 * writes a random secret as the first record of its exchange's partition 0 when it creates the exchange, and every
 * step carries it; a node runs a step only if the secret matches the exchange's. Only the engine role writes or reads
 * {@code baton.exchange.*}, {@code baton.dispatch} and the engine's task topic, so a dispatcher can never learn it;
 * outcomes ({@code baton.results}, which every dispatcher reads) never carry it.
 *
 * <p>The merge ignores the secret's record: it has none of the partials' split and execution headers.
 */
public final class ExchangeSecret {

    /** Marks the secret's record in the exchange. */
    static final String HEADER = "baton.job-secret";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ExchangeSecret() {
    }

    /** A new secret: 32 random bytes, in hex. */
    public static String create() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Writes {@code secret} into the new {@code exchange} and returns once it is durable, before any step is dispatched. */
    public static void write(Map<String, Object> clientConfig, String exchange, String secret) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER, new byte[0]);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(ClientConfigs.durableProducer(clientConfig), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(exchange, 0, null, null, secret.getBytes(UTF_8), headers))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The secret in {@code exchange}, read with {@code consumer} (left unassigned after), if its record is the first. */
    static Optional<String> read(KafkaConsumer<byte[], byte[]> consumer, String exchange) {
        TopicPartition tp = new TopicPartition(exchange, 0);
        consumer.assign(List.of(tp));
        try {
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), TIMEOUT).get(tp);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (consumer.position(tp, TIMEOUT) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> first : consumer.poll(Duration.ofMillis(100))) {
                    return first.headers().lastHeader(HEADER) != null && first.value() != null
                            ? Optional.of(new String(first.value(), UTF_8)) : Optional.empty();
                }
            }
            return Optional.empty();
        } finally {
            consumer.unsubscribe();
        }
    }

    /** Compares in time independent of where the two differ. */
    static boolean matches(String expected, String claimed) {
        return claimed != null && MessageDigest.isEqual(expected.getBytes(UTF_8), claimed.getBytes(UTF_8));
    }
}
