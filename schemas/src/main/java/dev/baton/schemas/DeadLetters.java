package dev.baton.schemas;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Arrays;

import dev.baton.events.DeadLetter;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Builds the {@code baton.dlq} record for a record no process can use: the raw key and value are
 * kept with where they came from and why, so nothing is lost and an operator can replay it.
 *
 * <p>It returns a {@link ProducerRecord} rather than sending, so a transactional caller can put the
 * dead letter in the same transaction as the offset commit that skips the bad record.
 *
 * <p>A key or value larger than {@link #MAX_KEPT_BYTES} is kept truncated, and the reason says so: a
 * dead letter that cannot be written (over the producer's {@code max.request.size}) would fail the
 * writer's transaction, and a record as large as the limit would otherwise stop the stream thread
 * over and over. The source topic, partition and offset still point at the whole record.
 */
public final class DeadLetters {

    /** Most bytes of a key or value a dead letter keeps: together well under Kafka's 1 MiB default request size. */
    public static final int MAX_KEPT_BYTES = 256 * 1024;

    private final EventSerde<DeadLetter> serde;
    private final String process;
    private final Clock clock;

    public DeadLetters(EventSerde<DeadLetter> serde, String process, Clock clock) {
        this.serde = serde;
        this.process = process;
        this.clock = clock;
    }

    public ProducerRecord<byte[], byte[]> deadLetter(ConsumerRecord<byte[], byte[]> raw, String reason) {
        return deadLetter(raw.topic(), raw.partition(), raw.offset(), raw.key(), raw.value(), reason);
    }

    public ProducerRecord<byte[], byte[]> deadLetter(String topic, int partition, long offset, byte[] key, byte[] value, String reason) {
        byte[] keptKey = kept(key);
        byte[] keptValue = kept(value);
        String why = reason + truncation("key", key, keptKey) + truncation("value", value, keptValue);
        DeadLetter letter = DeadLetter.newBuilder()
                .setSourceTopic(topic)
                .setSourcePartition(partition)
                .setSourceOffset(offset)
                .setKey(keptKey == null ? null : ByteBuffer.wrap(keptKey))
                .setValue(keptValue == null ? null : ByteBuffer.wrap(keptValue))
                .setReason(why)
                .setProcess(process)
                .setAtMillis(clock.millis())
                .build();
        return new ProducerRecord<>(BatonTopics.DLQ, keptKey, serde.encode(BatonTopics.DLQ, letter));
    }

    private static byte[] kept(byte[] bytes) {
        return bytes == null || bytes.length <= MAX_KEPT_BYTES ? bytes : Arrays.copyOf(bytes, MAX_KEPT_BYTES);
    }

    private static String truncation(String what, byte[] original, byte[] kept) {
        return original == kept ? "" : "; " + what + " truncated to its first " + kept.length + " of " + original.length
                + " bytes (the whole record is at the source offset)";
    }
}
