package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.WalkedRecords.kafkasOwn;
import static dev.baton.morsel.kafka.WalkedRecords.simple;
import static dev.baton.morsel.kafka.WalkedRecords.text;
import static dev.baton.morsel.kafka.WalkedRecords.walked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * An adversary of {@link BatchWalk} on hand-made bytes (issue 30, h/adv40): what the embedded broker cannot be made
 * to write. The contract: the walk hands out the records Kafka's own batch iterator finds at or after the fetch
 * offset, with their offsets, keys and values; at a batch of an old message format it stops before that batch's
 * records, naming it, with {@link BatchWalk#walked()} at the batch's first offset so the consumer can read on there.
 */
class Adv40BatchWalkTest {

    /** Offsets past Integer.MAX_VALUE and up to Long.MAX_VALUE - 1 in a batch header, uncompressed and compressed. */
    @Test
    void offsetsNearTheIntegerAndLongBounds() {
        for (Compression compression : List.of(Compression.NONE, Compression.gzip().build(), Compression.zstd().build())) {
            for (long base : new long[] {Integer.MAX_VALUE - 2L, Long.MAX_VALUE - 6}) {
                MemoryRecords records = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, base, compression, TimestampType.CREATE_TIME,
                        simple("a", "1"), simple(null, "2"), simple("c", null), simple("", ""), simple("e", "5"));
                for (long from = base; from <= base + 5; from++) {
                    assertEquals(kafkasOwn(records, from), walked(records, from), compression + " batch at " + base + ", fetched at " + from);
                }
            }
        }
    }

    /** A v1 batch between v2 batches: the v2 records before it, then the old-format exception at its first offset. */
    @Test
    void anOldFormatBatchStopsTheWalkAtItsFirstOffset() {
        ByteBuffer all = ByteBuffer.allocate(4_096);
        all.put(MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE, TimestampType.CREATE_TIME,
                simple("a", "0"), simple("b", "1"), simple("c", "2")).buffer());
        all.put(MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, 3, Compression.NONE, TimestampType.CREATE_TIME,
                simple("d", "3"), simple("e", "4")).buffer());
        all.put(MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 5, Compression.NONE, TimestampType.CREATE_TIME,
                simple("f", "5")).buffer());
        all.flip();
        MemoryRecords records = MemoryRecords.readableRecords(all);
        BatchWalk walk = new BatchWalk(0, records, 1, List.of(), true, BufferSupplier.create());
        List<String> got = new ArrayList<>();
        assertThrows(BatchWalk.OldFormatException.class, () -> {
            while (walk.ready()) {
                got.add(walk.view().offset() + "=" + text(walk.view().value()));
                walk.take();
            }
        });
        assertEquals(List.of("1=1", "2=2"), got);
        assertEquals(3, walk.walked());
    }
}
