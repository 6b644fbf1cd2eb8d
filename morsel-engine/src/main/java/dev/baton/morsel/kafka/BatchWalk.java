package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The committed records of one partition's part of one fetch response, walked in place: what a
 * {@code read_committed} {@code KafkaConsumer} hands out of the same bytes, in the same order, without a
 * {@code ConsumerRecord} (or any object) per record of an uncompressed batch.
 *
 * <p>The rules are the consumer's ({@code CompletedFetch.nextFetchedRecord}): control batches yield nothing (an
 * abort marker ends its producer's aborted transaction); a transactional batch whose producer has an aborted
 * transaction that began at or before the batch's last offset is skipped whole; records before the offset the
 * fetch asked for are skipped (a fetch returns the whole batch that holds it); a compressed batch is read with
 * Kafka's own iterator.
 *
 * <p>{@link #ready} moves to the next record to hand out and leaves it there until {@link #take}: a scan stops
 * at a record past its range's end without consuming it, and the next range goes on from it.
 *
 * <p>Not thread-safe.
 */
final class BatchWalk {

    /** Where a v2 batch's records start: its 61 bytes of header. */
    private static final int RECORDS_OFFSET = 61;
    private static final int LOG_OVERHEAD = 12;
    /** The least a batch's length field may say: an old-format record's overhead, the bound Kafka's batch reader checks. */
    private static final int MIN_LENGTH = 14;
    private static final int MAGIC_OFFSET = 16;
    private static final int LAST_OFFSET_DELTA_OFFSET = 23;

    /** Thrown when the bytes hold a batch of an old message format; the caller reads on with the consumer. */
    static final class OldFormatException extends RuntimeException {
        OldFormatException(String message) {
            super(message, null, false, false);
        }
    }

    private final ByteBuffer bytes;
    /**
     * The same bytes as an array, index {@code i} of {@link #bytes} at {@code array[base + i]}: records are parsed from it
     * without a call per byte. The cold commands run C1 only, which cannot inline a {@code ByteBuffer}'s accessors (its
     * implementations are many): a call and its index and scope checks per byte read were ~14% of a cold scan.
     */
    private final byte[] array;
    private final int base;
    /** The response's buffer, as fetched: handed back whole once walked ({@link #fetched}). */
    private final ByteBuffer fetched;
    private final int end;
    private final boolean checkCrcs;
    private final PriorityQueue<FetchResponseData.AbortedTransaction> aborted;
    private final Set<Long> abortedProducers = new HashSet<>();
    private final BufferSupplier decompression;
    private final FetchedRecord view;

    /** Where the next batch starts: the current batch's end. */
    private int batchAt;
    /** The offset below which nothing is handed out: the fetch's offset, then one past the last record passed. */
    private long walked;
    private MutableRecordBatch batch;
    // An uncompressed v2 batch: the next record's position and how many are left.
    private int recordAt;
    private int recordsLeft;
    private long baseOffset;
    // A compressed batch.
    private CloseableIterator<Record> records;
    private boolean current;

    BatchWalk(int partition, MemoryRecords fetched, long fetchOffset, List<FetchResponseData.AbortedTransaction> abortedTransactions,
              boolean checkCrcs, BufferSupplier decompression) {
        this.fetched = fetched.buffer();
        this.bytes = this.fetched.duplicate();
        if (bytes.hasArray()) {
            this.array = bytes.array();
            this.base = bytes.arrayOffset();
        } else { // never from Kafka's network client, which reads into heap buffers; copied if it ever is not
            this.array = new byte[bytes.limit()];
            bytes.get(0, array, 0, array.length);
            this.base = 0;
        }
        this.batchAt = bytes.position();
        this.end = bytes.limit();
        this.walked = fetchOffset;
        this.checkCrcs = checkCrcs;
        this.decompression = decompression;
        this.view = new FetchedRecord(partition, bytes);
        if (abortedTransactions == null || abortedTransactions.isEmpty()) {
            this.aborted = null;
        } else {
            this.aborted = new PriorityQueue<>(abortedTransactions.size(), Comparator.comparingLong(FetchResponseData.AbortedTransaction::firstOffset));
            this.aborted.addAll(abortedTransactions);
        }
    }

    /** The fetched bytes this walk reads in place: no record of it may be read once they are handed back for reuse. */
    ByteBuffer fetched() {
        return fetched;
    }

    /**
     * The offset after the response's last whole batch: where the fetch after this one starts. Read from the batch
     * headers alone; -1 if a batch is of an old format.
     */
    long fetchedTo() {
        long after = -1;
        for (int at = bytes.position(); at + RECORDS_OFFSET <= end; ) {
            int size = LOG_OVERHEAD + bytes.getInt(at + 8);
            if (size < RECORDS_OFFSET || at + size > end) {
                break;
            }
            if (bytes.get(at + MAGIC_OFFSET) < RecordBatch.MAGIC_VALUE_V2) {
                return -1;
            }
            after = bytes.getLong(at) + bytes.getInt(at + LAST_OFFSET_DELTA_OFFSET) + 1;
            at += size;
        }
        return after;
    }

    /** The offset a fetch must start at to go on after what this walk passed. */
    long walked() {
        return walked;
    }

    /**
     * Moves to the next record to hand out ({@link #view()}), or returns false when the response holds no more.
     *
     * @throws OldFormatException at a batch of message format 0 or 1, before any of its records
     */
    boolean ready() {
        while (!current) {
            if (recordsLeft > 0) {
                readRecord();
            } else if (records != null && records.hasNext()) {
                Record r = records.next();
                if (r.offset() >= walked) {
                    view.set(r);
                    current = true;
                }
            } else {
                if (batch != null) {
                    walked = Math.max(walked, batch.nextOffset());
                    closeRecords();
                    batch = null;
                }
                if (!openBatch()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The record {@link #ready} moved to. */
    FetchedRecord view() {
        return view;
    }

    /** Passes the record {@link #ready} moved to. */
    void take() {
        current = false;
        walked = view.offset() + 1;
    }

    private void readRecord() {
        recordsLeft--;
        int p = recordAt;
        long length = varint(p);
        p = next;
        if (length < 0 || length > batchAt - p) { // not p + length > batchAt: a length near 2^31 wraps it (h/adv29)
            throw corrupt("a record's length " + length + " runs past its batch");
        }
        int recordEnd = p + (int) length;
        p++; // attributes
        skipVarlong(p); // timestamp delta
        p = next;
        long offsetDelta = varint(p);
        p = next;
        // Kafka's reader takes any negative key, value or header value size for null, -1 being what its writers write
        // (h/adv29): so does the walk, rather than refuse a record every consumer reads.
        long keySize = Math.max(-1, varint(p));
        p = next;
        int keyAt = p;
        if (keySize > recordEnd - p) { // checked before it is skipped: a size near 2^31 would wrap p
            throw corrupt("a record's key (" + keySize + " bytes) runs past the record");
        }
        if (keySize > 0) {
            p += (int) keySize;
        }
        long valueSize = Math.max(-1, varint(p));
        p = next;
        int valueAt = p;
        if (valueSize > recordEnd - p) {
            throw corrupt("a record's value (" + valueSize + " bytes) runs past the record");
        }
        if (valueSize > 0) {
            p += (int) valueSize;
        }
        checkHeadersEnd(p, recordEnd);
        if (recordsLeft == 0 && recordEnd != batchAt) {
            // Kafka's iterator refuses a batch with bytes past its declared records: a count below them would cut records silently
            throw corrupt("the batch holds bytes past its declared records");
        }
        recordAt = recordEnd;
        long offset = baseOffset + offsetDelta;
        if (offset >= walked) {
            view.set(offset, keyAt, (int) keySize, valueAt, (int) valueSize);
            current = true;
        }
    }

    /**
     * Walks a record's headers (no record handed out reads them) to where they end, which must be where the record's length
     * says it ends: Kafka's reader refuses a record whose fields end before or after its length, so the walk does too.
     */
    private void checkHeadersEnd(int p, int recordEnd) {
        long headers = varint(p);
        p = next;
        if (headers < 0 || headers > (recordEnd - p) / 2) { // a header takes at least two bytes: its key's and its value's sizes
            throw corrupt("a record counts " + headers + " headers in " + (recordEnd - p) + " bytes");
        }
        for (long h = 0; h < headers; h++) {
            long keySize = varint(p);
            p = next;
            if (keySize < 0 || keySize > recordEnd - p) {
                throw corrupt("a header's key (" + keySize + " bytes) runs past the record");
            }
            p += (int) keySize;
            long valueSize = varint(p);
            p = next;
            if (valueSize > recordEnd - p) { // below -1 is null too, as for the record's own key and value
                throw corrupt("a header's value (" + valueSize + " bytes) runs past the record");
            }
            if (valueSize > 0) {
                p += (int) valueSize;
            }
        }
        if (p < recordEnd) {
            throw corrupt("a record's fields end " + (recordEnd - p) + " bytes before the end its length gives");
        }
        if (p > recordEnd) { // a header count's or size's varint read past the record, into the next one
            throw corrupt("a record's fields run " + (p - recordEnd) + " bytes past the end its length gives");
        }
    }

    /** Opens the next whole batch to hand records from, skipping control and aborted batches; false at the end. */
    private boolean openBatch() {
        while (batchAt + LOG_OVERHEAD <= end) {
            int length = bytes.getInt(batchAt + 8);
            if (length < MIN_LENGTH) {
                // as Kafka's batch reader refuses it: taken for a batch cut by the fetch's end, the same offset would be
                // fetched again until the stall limit, naming no corruption
                throw new CorruptRecordException("a batch length of " + length + " is below the least a record takes (" + MIN_LENGTH
                        + ") (partition " + view.partition() + ", batch at offset " + bytes.getLong(batchAt) + ")");
            }
            if ((long) batchAt + LOG_OVERHEAD + length > end) {
                return false; // a fetch may end in part of a batch: the next fetch starts at it
            }
            int size = LOG_OVERHEAD + length;
            int at = batchAt;
            batchAt += size;
            byte magic = bytes.get(at + MAGIC_OFFSET);
            if (magic < RecordBatch.MAGIC_VALUE_V2) {
                throw new OldFormatException("a batch of message format v" + magic + " at offset " + bytes.getLong(at));
            }
            MutableRecordBatch b = MemoryRecords.readableRecords(bytes.slice(at, size)).batches().iterator().next();
            if (checkCrcs) {
                b.ensureValid();
            }
            if (b.hasProducerId() && skippedAsAborted(b)) {
                walked = Math.max(walked, b.nextOffset());
                continue;
            }
            if (b.isControlBatch()) {
                walked = Math.max(walked, b.nextOffset());
                continue;
            }
            batch = b;
            if (b.isCompressed()) {
                records = b.streamingIterator(decompression);
            } else {
                baseOffset = b.baseOffset();
                recordAt = at + RECORDS_OFFSET;
                Integer count = b.countOrNull();
                recordsLeft = count == null ? 0 : count;
                if (recordsLeft < 0) {
                    throw corrupt("a batch counts " + recordsLeft + " records");
                }
            }
            return true;
        }
        return false;
    }

    /** The consumer's read_committed rule for a batch of a producer with an id: true if it is to be skipped. */
    private boolean skippedAsAborted(MutableRecordBatch b) {
        if (aborted != null) {
            while (!aborted.isEmpty() && aborted.peek().firstOffset() <= b.lastOffset()) {
                abortedProducers.add(aborted.poll().producerId());
            }
        }
        if (isAbortMarker(b)) {
            abortedProducers.remove(b.producerId());
            return false;
        }
        return b.isTransactional() && abortedProducers.contains(b.producerId());
    }

    private static boolean isAbortMarker(MutableRecordBatch b) {
        if (!b.isControlBatch()) {
            return false;
        }
        Iterator<Record> it = b.iterator();
        return it.hasNext() && ControlRecordType.ABORT == ControlRecordType.parse(it.next().key());
    }

    private void closeRecords() {
        if (records != null) {
            records.close();
            records = null;
        }
        recordsLeft = 0;
    }

    /** Where the varint read last ended. */
    private int next;

    /**
     * A zig-zag varint at {@code p} (Kafka's record fields), inside the current batch; sets {@link #next}. Most of a
     * record's sizes and deltas take one or two bytes: those are read without the loop and its checks per byte.
     */
    private long varint(int p) {
        byte[] a = array;
        int i = base + p;
        if (i < base + batchAt - 1) { // both bytes inside the batch; no i + 1 to wrap
            int b0 = a[i];
            if (b0 >= 0) {
                next = p + 1;
                return (b0 >>> 1) ^ -(b0 & 1);
            }
            int b1 = a[i + 1];
            if (b1 >= 0) {
                int raw = (b0 & 0x7f) | b1 << 7;
                next = p + 2;
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        return anyVarint(p);
    }

    /** {@link #varint} of any length, and at the batch's end. */
    private long anyVarint(int p) {
        byte[] a = array;
        int i = base + p;
        int stop = base + batchAt;
        int raw = 0;
        int shift = 0;
        while (true) {
            if (i >= stop) {
                throw corrupt("a varint runs past its batch");
            }
            byte b = a[i++];
            raw |= (b & 0x7f) << shift;
            if (b >= 0) {
                break;
            }
            shift += 7;
            if (shift > 28) {
                throw corrupt("a varint longer than 5 bytes");
            }
        }
        next = i - base;
        return (raw >>> 1) ^ -(raw & 1);
    }

    /**
     * Passes a varlong at {@code p} whose value no one reads (a record's timestamp delta), inside the current batch, as
     * Kafka's reader would read it (at most ten bytes); sets {@link #next}.
     */
    private void skipVarlong(int p) {
        byte[] a = array;
        int i = base + p;
        int stop = base + batchAt;
        for (int read = 0; ; read++) {
            if (read == 10) {
                throw corrupt("a varlong longer than 10 bytes");
            }
            if (i >= stop) {
                throw corrupt("a varlong runs past its batch");
            }
            if (a[i++] >= 0) {
                break;
            }
        }
        next = i - base;
    }

    private CorruptRecordException corrupt(String what) {
        return new CorruptRecordException(what + " (partition " + view.partition() + ", batch at offset " + baseOffset + ")");
    }
}
