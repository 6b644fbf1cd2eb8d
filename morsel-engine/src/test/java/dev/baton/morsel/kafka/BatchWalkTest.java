package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.WalkedRecords.kafkasOwn;
import static dev.baton.morsel.kafka.WalkedRecords.text;
import static dev.baton.morsel.kafka.WalkedRecords.walked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
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

    @Test
    void shouldHandOutRecordsWithHeadersAsKafkaDoes() {
        Header[] headers = {new RecordHeader("a", "1".getBytes(StandardCharsets.UTF_8)), new RecordHeader("b", null), new RecordHeader("", new byte[0])};
        MemoryRecords records = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE, TimestampType.CREATE_TIME,
                new SimpleRecord(1L, bytes("k0"), bytes("v0"), headers), new SimpleRecord(1L, null, bytes("v1"), new Header[0]),
                new SimpleRecord(1L, bytes("k2"), null, headers));

        assertThat(walked(records, 0)).containsExactly("0:k0=v0", "1:null=v1", "2:k2=null").isEqualTo(kafkasOwn(records, 0));
    }

    /**
     * Sizes and deltas at each length a varint or varlong takes (one and two bytes are read apart from the rest): every
     * record read as Kafka reads it.
     */
    @Test
    void shouldReadSizesAndDeltasOfEveryVarintLength() {
        int[] sizes = {0, 1, 31, 32, 63, 64, 65, 4095, 4096, 8191, 8192, 20_000};
        long[] timestampDeltas = {0, 31, 32, 63, 64, 8191, 8192, 1L << 20, 1L << 27, 1L << 34, 1L << 41, 1L << 55};
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            Header[] headers = {new RecordHeader("h".repeat(sizes[(i + 3) % sizes.length]), bytes("x".repeat(sizes[(i + 5) % sizes.length])))};
            records.add(new SimpleRecord(1_000L + timestampDeltas[i], bytes("k".repeat(sizes[(i + 7) % sizes.length])),
                    bytes("v".repeat(sizes[i])), headers));
        }
        MemoryRecords batch = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE, TimestampType.CREATE_TIME,
                records.toArray(SimpleRecord[]::new));

        assertThat(walked(batch, 0)).hasSize(sizes.length).isEqualTo(kafkasOwn(batch, 0));
    }

    /** Kafka's reader refuses a record whose length says more than its fields take ("Invalid record size"): so does the walk. */
    @Test
    void shouldRefuseARecordLongerThanItsFields() {
        MemoryRecords records = oneRecordBatch(body -> {
            ByteBuffer longer = ByteBuffer.allocate(body.remaining() + 1);
            return longer.put(body).put((byte) 0).flip(); // a byte past the header count, inside the record's length
        });

        assertThatThrownBy(() -> kafkasOwn(records, 0)).isInstanceOf(KafkaException.class);
        assertThatThrownBy(() -> walked(records, 0)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("a record's fields end 1 bytes before the end its length gives");
    }

    /** A length one byte short of the record's fields: its header count is read from past its end. */
    @Test
    void shouldRefuseARecordShorterThanItsFields() {
        ByteBuffer batch = oneRecordBatch(body -> body).buffer().duplicate();
        batch.put(61, (byte) (batch.get(61) - 2)); // the record's length, zig-zag: one less
        MemoryRecords records = resealed(batch);

        assertThatThrownBy(() -> kafkasOwn(records, 0)).isInstanceOf(KafkaException.class);
        assertThatThrownBy(() -> walked(records, 0)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("a record's fields run 1 bytes past the end its length gives");
    }

    @Test
    void shouldRefuseANegativeHeaderCount() {
        MemoryRecords records = oneRecordBatch(body -> body.put(body.limit() - 1, (byte) 1)); // zig-zag -1 for the count of 0

        assertThatThrownBy(() -> kafkasOwn(records, 0)).isInstanceOf(KafkaException.class);
        assertThatThrownBy(() -> walked(records, 0)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("a record counts -1 headers");
    }

    /**
     * A batch of one record ("k" = "v", no headers) whose body (after its one-byte length) is rewritten by {@code edit}: the
     * record's length, the batch's and its CRC follow the new body: only a check of the record's own fields can catch it.
     */
    private static MemoryRecords oneRecordBatch(java.util.function.UnaryOperator<ByteBuffer> edit) {
        ByteBuffer original = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE, TimestampType.CREATE_TIME,
                new SimpleRecord(1L, bytes("k"), bytes("v"))).buffer();
        int recordAt = 61; // a v2 batch's header
        ByteBuffer body = original.duplicate().position(recordAt + 1); // after the record's length varint (one byte here)
        ByteBuffer edited = edit.apply(ByteBuffer.allocate(body.remaining()).put(body).flip());
        ByteBuffer out = ByteBuffer.allocate(recordAt + 1 + edited.remaining());
        out.put(original.duplicate().limit(recordAt)).put((byte) (edited.remaining() << 1)).put(edited).flip();
        out.putInt(8, out.limit() - 12); // the batch's length, after its offset and length fields
        return resealed(out);
    }

    /** {@code batch} with its CRC made to match its bytes. */
    private static MemoryRecords resealed(ByteBuffer batch) {
        WalkedRecords.resealCrc(batch);
        MemoryRecords records = MemoryRecords.readableRecords(batch);
        records.batches().iterator().next().ensureValid();
        return records;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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
