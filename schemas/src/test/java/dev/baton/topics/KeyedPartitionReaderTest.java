package dev.baton.topics;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KeyedPartitionReaderTest {

    private static final String TOPIC = "baton.results";
    private static final int PARTITIONS = 12;

    @Test
    void shouldReadOnlyTheKeysPartitionAndOnlyItsRecords() {
        MockConsumer<byte[], byte[]> consumer = consumerWithTopic();
        KeyedPartitionReader reader = KeyedPartitionReader.open(consumer, TOPIC, "billing-1", Duration.ofSeconds(1));
        TopicPartition tp = reader.partition();
        assertThat(tp.partition()).isEqualTo(BatonTopics.keyPartition("billing-1", PARTITIONS));
        assertThat(consumer.assignment()).containsExactly(tp);

        consumer.updateBeginningOffsets(Map.of(tp, 0L));
        consumer.updateEndOffsets(Map.of(tp, 3L));
        assertThat(reader.position(KeyedPartitionReader.Start.END, Duration.ofSeconds(1))).isEqualTo(3L);
        consumer.addRecord(record(tp, 3, "billing-1", "mine"));
        consumer.addRecord(record(tp, 4, "billing-10", "a neighbour's"));
        consumer.addRecord(record(tp, 5, null, "keyless"));
        consumer.addRecord(record(tp, 6, "billing-1", "mine too"));
        assertThat(reader.poll(Duration.ofMillis(10))).extracting(r -> new String(r.value(), UTF_8)).containsExactly("mine", "mine too");
    }

    @Test
    void shouldSayHowToCreateAMissingTopic() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        assertThatThrownBy(() -> KeyedPartitionReader.open(consumer, TOPIC, "billing-1", Duration.ofSeconds(1)))
                .hasMessageContaining(TOPIC + " does not exist").hasMessageContaining("baton topics create");
    }

    private static MockConsumer<byte[], byte[]> consumerWithTopic() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        Node node = new Node(1, "localhost", 9092);
        consumer.updatePartitions(TOPIC, IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new PartitionInfo(TOPIC, p, node, new Node[]{node}, new Node[]{node})).toList());
        return consumer;
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, String key, String value) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, key == null ? null : key.getBytes(UTF_8), value.getBytes(UTF_8));
    }
}
