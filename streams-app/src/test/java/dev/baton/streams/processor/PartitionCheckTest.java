package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class PartitionCheckTest {

    private static final byte[] KEY = "shop/order%2F42/charge".getBytes(StandardCharsets.UTF_8);
    /** Java's default partitioner for KEY over 12 partitions (the Node client's test pins the same number). */
    private static final int OWNER = 8;

    @Test
    void shouldAcceptARecordOnThePartitionItsKeyMapsTo() {
        assertThat(Utils.toPositive(Utils.murmur2(KEY)) % 12).isEqualTo(OWNER);
        assertThat(new PartitionCheck(InputPartitions.fixed(12)).misplacement("baton.dispatch", KEY, OWNER)).isEmpty();
    }

    @Test
    void shouldNameTheOwnerAndThePartitionerToUseForAMisplacedRecord() {
        assertThat(new PartitionCheck(InputPartitions.fixed(12)).misplacement("baton.worker-events", KEY, 3)).hasValue(
                "wrong partition: written to partition 3 of baton.worker-events, but its key maps to partition 8 (murmur2 of the key "
                        + "bytes modulo 12, Kafka's default partitioner); produce with a murmur2 partitioner (librdkafka: partitioner=murmur2_random)");
    }

    @Test
    void shouldCheckNothingWhileThePartitionCountIsUnknown() {
        assertThat(new PartitionCheck(InputPartitions.fixed(0)).misplacement("baton.dispatch", KEY, 3)).isEmpty();
    }
}
