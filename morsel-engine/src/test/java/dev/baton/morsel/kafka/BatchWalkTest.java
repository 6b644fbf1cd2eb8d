package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * What the walk does with bytes a Kafka 4 broker no longer writes (the differential IT covers what it does write): an
 * old message format is refused before any of its records, after the records of the batches before it, and the offset
 * to go on from is the old batch's first.
 */
class BatchWalkTest {

    @Test
    void shouldHandOutTheBatchesBeforeAnOldFormatBatchThenRefuseItNamingWhereToGoOn() {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        batch(buffer, RecordBatch.MAGIC_VALUE_V2, 0, 3);
        batch(buffer, RecordBatch.MAGIC_VALUE_V1, 3, 2);
        buffer.flip();
        BatchWalk walk = new BatchWalk(0, MemoryRecords.readableRecords(buffer), 1, List.of(), true, BufferSupplier.create());

        List<String> values = new ArrayList<>();
        assertThatThrownBy(() -> {
            while (walk.ready()) {
                ByteBuffer v = walk.view().value();
                values.add(walk.view().offset() + "=" + StandardCharsets.UTF_8.decode(v.duplicate()));
                walk.take();
            }
        }).isInstanceOf(BatchWalk.OldFormatException.class).hasMessageContaining("v1").hasMessageContaining("offset 3");

        assertThat(values).containsExactly("1=v1", "2=v2");
        assertThat(walk.walked()).isEqualTo(3);
    }

    @Test
    void shouldLeaveATrailingPartialBatchForTheNextFetch() {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        batch(buffer, RecordBatch.MAGIC_VALUE_V2, 0, 2);
        int whole = buffer.position();
        batch(buffer, RecordBatch.MAGIC_VALUE_V2, 2, 2);
        buffer.flip();
        buffer.limit(whole + 20); // a fetch that ends inside the second batch
        BatchWalk walk = new BatchWalk(0, MemoryRecords.readableRecords(buffer.slice()), 0, List.of(), true, BufferSupplier.create());

        int handed = 0;
        while (walk.ready()) {
            walk.take();
            handed++;
        }

        assertThat(handed).isEqualTo(2);
        assertThat(walk.walked()).isEqualTo(2);
        assertThat(walk.fetchedTo()).isEqualTo(2);
    }

    private static void batch(ByteBuffer buffer, byte magic, long baseOffset, int records) {
        MemoryRecordsBuilder b = MemoryRecords.builder(buffer, magic, Compression.NONE, TimestampType.CREATE_TIME, baseOffset);
        for (int i = 0; i < records; i++) {
            long offset = baseOffset + i;
            b.appendWithOffset(offset, 1_000L, ("k" + offset).getBytes(StandardCharsets.UTF_8), ("v" + offset).getBytes(StandardCharsets.UTF_8));
        }
        b.build();
    }
}
