package dev.baton.schemas;

import java.nio.ByteBuffer;
import java.time.Clock;

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
 */
public final class DeadLetters {

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
        DeadLetter letter = DeadLetter.newBuilder()
                .setSourceTopic(topic)
                .setSourcePartition(partition)
                .setSourceOffset(offset)
                .setKey(key == null ? null : ByteBuffer.wrap(key))
                .setValue(value == null ? null : ByteBuffer.wrap(value))
                .setReason(reason)
                .setProcess(process)
                .setAtMillis(clock.millis())
                .build();
        return new ProducerRecord<>(BatonTopics.DLQ, key, serde.encode(BatonTopics.DLQ, letter));
    }
}
