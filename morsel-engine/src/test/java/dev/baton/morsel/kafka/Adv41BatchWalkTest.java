package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.WalkedRecords.kafkasOwn;
import static dev.baton.morsel.kafka.WalkedRecords.resealCrc;
import static dev.baton.morsel.kafka.WalkedRecords.simple;
import static dev.baton.morsel.kafka.WalkedRecords.text;
import static dev.baton.morsel.kafka.WalkedRecords.walked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * An adversary of {@link BatchWalk}'s in-place parse (issue 30, h/adv41), on hand-made batches whose CRC is valid (a
 * hostile or broken broker: the CRC check passes). The contract: corrupt input fails the walk with a clear error
 * (Kafka's exceptions, as the consumer's iterator throws for the same bytes) and never hands out wrong records.
 */
class Adv41BatchWalkTest {

    /**
     * A key size of Integer.MAX_VALUE: the walk skips the key with an int addition that wraps negative and then indexes
     * the response's array below 0, failing with an ArrayIndexOutOfBoundsException instead of a CorruptRecordException
     * (Kafka's own iterator throws a KafkaException for the same bytes).
     */
    @Test
    void aKeySizeNearIntegerMaxFailsAsCorruptNotAsAnArrayIndex() {
        ByteBuffer batch = oneBatch(simple("KKKKK", "v"));
        int keyLength = firstRecordKeyLengthAt(batch);
        assertEquals(0x0A, batch.get(keyLength), "key length 5, zig-zag"); // the layout this test rewrites
        // zig-zag of Integer.MAX_VALUE as a 5-byte varint, over the key length and 4 bytes of the key
        batch.put(keyLength, (byte) 0xFE).put(keyLength + 1, (byte) 0xFF).put(keyLength + 2, (byte) 0xFF)
                .put(keyLength + 3, (byte) 0xFF).put(keyLength + 4, (byte) 0x0F);
        resealCrc(batch);
        MemoryRecords records = MemoryRecords.readableRecords(batch);
        records.batches().iterator().next().ensureValid(); // the CRC holds: only a bounds check can catch it
        assertThrows(KafkaException.class, () -> kafkasOwn(records, 0), "Kafka's iterator");
        RuntimeException e = assertThrows(RuntimeException.class, () -> walked(records, 0));
        if (!(e instanceof KafkaException)) {
            fail("the walk failed with " + e + " rather than a corrupt-record error", e);
        }
    }

    /**
     * A batch whose record count is below the records it holds (a count of -1, or 1 or 2 of 3; a count of 0 Kafka too reads as an empty batch): Kafka's iterator throws
     * (an invalid count; records left past the declared count), the walk hands out what the count says and moves past
     * the batch's last offset: records silently missing from the scan.
     */
    @Test
    void aBatchWhoseCountIsBelowItsRecordsIsNotSilentlyCut() {
        List<String> cut = new ArrayList<>();
        for (int count : new int[] {-1, 1, 2}) {
            ByteBuffer batch = oneBatch(simple("a", "0"), simple("b", "1"), simple("c", "2"));
            batch.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, count);
            resealCrc(batch);
            MemoryRecords records = MemoryRecords.readableRecords(batch);
            records.batches().iterator().next().ensureValid();
            assertThrows(KafkaException.class, () -> kafkasOwn(records, 0), "Kafka's iterator, count " + count);
            List<String> got = new ArrayList<>();
            try {
                got.addAll(walked(records, 0));
            } catch (KafkaException expected) {
                continue;
            }
            cut.add("counted " + count + ": handed out " + got);
        }
        if (!cut.isEmpty()) {
            fail("a batch of 3 records (offsets 0-2), CRC valid, walked with no error and passed at offset 3: " + cut);
        }
    }

    /**
     * A batch whose length field is negative (-1; 0 and 4 are checked too and do fail), before a valid batch: Kafka's
     * iterator throws a CorruptRecordException (a size below the minimum record overhead); the walk takes it for a batch
     * cut by the fetch's end, hands out nothing, fails nothing, and stays at the fetch offset (fetchedTo -1: no fetch
     * ahead), so the FetchReader fetches the same offset again and again until its stall limit (90 s in a scan) and
     * then fails with "no progress", naming no corruption.
     */
    @Test
    void aBatchLengthBelowTheHeaderIsCorruptNotAPartialBatch() {
        List<String> silent = new ArrayList<>();
        for (int length : new int[] {-1, 0, 4}) {
            ByteBuffer first = oneBatch(simple("a", "0"));
            ByteBuffer second = oneBatch(simple("b", "1"));
            ByteBuffer all = ByteBuffer.allocate(first.remaining() + second.remaining());
            all.put(first).put(second).flip();
            all.putInt(8, length); // the first batch's length field
            MemoryRecords records = MemoryRecords.readableRecords(all);
            assertThrows(KafkaException.class, () -> kafkasOwn(records, 0), "Kafka's iterator, length " + length);
            try {
                BatchWalk walk = new BatchWalk(0, records, 0, List.of(), true, BufferSupplier.create());
                List<String> got = new ArrayList<>();
                while (walk.ready()) {
                    got.add(walk.view().offset() + "");
                    walk.take();
                }
                silent.add("length " + length + ": handed out " + got + ", walked to " + walk.walked() + ", fetchedTo " + walk.fetchedTo());
            } catch (KafkaException expected) {
                // the clear error
            } catch (RuntimeException e) {
                silent.add("length " + length + ": " + e);
            }
        }
        if (!silent.isEmpty()) {
            fail("a batch length below the header, no corrupt-record error: " + silent);
        }
    }

    private static ByteBuffer oneBatch(SimpleRecord... records) {
        MemoryRecords m = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, 0, Compression.NONE, TimestampType.CREATE_TIME, records);
        ByteBuffer b = ByteBuffer.allocate(m.sizeInBytes());
        b.put(m.buffer().duplicate()).flip();
        return b;
    }

    /** Where the first record's key length is: its length varint, attributes, timestamp and offset deltas (one byte each here). */
    private static int firstRecordKeyLengthAt(ByteBuffer batch) {
        int at = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
        assertEquals(0, batch.get(at) & 0x80, "a one-byte record length");
        assertEquals(0, batch.get(at + 1), "attributes");
        assertEquals(0, batch.get(at + 2), "timestamp delta 0");
        assertEquals(0, batch.get(at + 3), "offset delta 0");
        return at + 4;
    }

}
