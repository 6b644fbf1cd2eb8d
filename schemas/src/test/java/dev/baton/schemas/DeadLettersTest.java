package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Map;
import java.util.UUID;

import dev.baton.events.DeadLetter;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

    private final EventSerde<DeadLetter> serde = EventSerde.of(DeadLetter.class, SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()));
    private final DeadLetters letters = new DeadLetters(serde, "test", Clock.systemUTC());

    @Test
    void shouldKeepASmallRecordWhole() {
        DeadLetter letter = decode(letters.deadLetter("baton.dispatch", 1, 7, new byte[] {1}, new byte[] {2, 3}, "bad"));

        assertThat(letter.getValue().remaining()).isEqualTo(2);
        assertThat(letter.getReason()).isEqualTo("bad");
        assertThat(letter.getSourceOffset()).isEqualTo(7);
    }

    /** A value as large as Kafka allows must not make a dead letter Kafka refuses (it stopped the stream thread over and over). */
    @Test
    void shouldTruncateAValueTooLargeToResendAndSaySo() {
        byte[] huge = new byte[1_048_450];

        ProducerRecord<byte[], byte[]> record = letters.deadLetter("baton.worker-events", 2, 9, new byte[] {1}, huge, "wrong magic byte");

        assertThat(record.value().length).isLessThan(DeadLetters.MAX_KEPT_BYTES + 4096);
        DeadLetter letter = decode(record);
        assertThat(letter.getValue().remaining()).isEqualTo(DeadLetters.MAX_KEPT_BYTES);
        assertThat(letter.getReason()).startsWith("wrong magic byte; value truncated to its first " + DeadLetters.MAX_KEPT_BYTES
                + " of 1048450 bytes");
    }

    private DeadLetter decode(ProducerRecord<byte[], byte[]> record) {
        assertThat(record.topic()).isEqualTo(BatonTopics.DLQ);
        return serde.decode(BatonTopics.DLQ, record.value());
    }
}
