package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.WalkedRecords.text;
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

    /**
     * A response read into a larger array (a kept one, {@link ResponseBuffers}) at an offset into it, with other bytes
     * before and after: the walk reads only the response's own bytes.
     */
    @Test
    void shouldReadAResponseThatSitsInsideALargerArray() {
        byte[] array = new byte[8192];
        java.util.Arrays.fill(array, (byte) 0x81); // every varint read outside the response would run on
        ByteBuffer response = ByteBuffer.wrap(array, 100, 4096).slice();
        batch(response, RecordBatch.MAGIC_VALUE_V2, 7, 3);
        batch(response, RecordBatch.MAGIC_VALUE_V2, 10, 2);
        response.flip();
        BatchWalk walk = new BatchWalk(0, MemoryRecords.readableRecords(response), 8, List.of(), true, BufferSupplier.create());

        List<String> got = new ArrayList<>();
        while (walk.ready()) {
            got.add(walk.view().offset() + ":" + text(walk.view().key()) + "=" + text(walk.view().value()));
            walk.take();
        }

        assertThat(got).containsExactly("8:k8=v8", "9:k9=v9", "10:k10=v10", "11:k11=v11");
        assertThat(walk.walked()).isEqualTo(12);
    }

    /**
     * A batch whose header counts more records than it holds, last in a response read into a larger array: the walk
     * refuses it as corrupt where the batch ends, not reading the array's bytes past the response (a kept array's
     * bytes of an older response).
     */
    @Test
    void shouldRefuseARecordThatRunsPastItsBatch() {
        byte[] array = new byte[8192];
        java.util.Arrays.fill(array, (byte) 0x81);
        ByteBuffer response = ByteBuffer.wrap(array, 0, 4096).slice();
        batch(response, RecordBatch.MAGIC_VALUE_V2, 0, 2);
        response.flip();
        response.putInt(57, 3); // the batch's record count (its CRC no longer matches: CRCs are not checked here)
        BatchWalk walk = new BatchWalk(0, MemoryRecords.readableRecords(response), 0, List.of(), false, BufferSupplier.create());

        assertThatThrownBy(() -> {
            while (walk.ready()) {
                walk.take();
            }
        }).isInstanceOf(org.apache.kafka.common.errors.CorruptRecordException.class).hasMessageContaining("a varint runs past its batch");
        assertThat(walk.walked()).isEqualTo(2);
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
