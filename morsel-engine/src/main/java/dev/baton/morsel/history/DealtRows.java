package dev.baton.morsel.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One worker's rows of one dictionary segment, in the order a {@link SegmentDeal} dealt them: per row its key's hash and
 * bytes, and its slots. Held in chunks of {@value #CHUNK_ROWS} rows and of {@value #BYTE_CHUNK} key bytes, allocated as
 * rows arrive: a full chunk is never copied, and nothing is allocated for rows a guess expected but the scan did not
 * deal.
 *
 * <p>Why chunks: the buckets were arrays presized from the record count (a whole history's 10M records: ~680 MB in all,
 * allocated at the scan's first batch) so that no doubling copied them mid-scan. The first young collection then came
 * at once and copied all of it, zeros included, and the guess of three records per site left a fifth of it unused
 * (docs/decisions.md, "The deal's rows in chunks"). Only a bucket's first chunk starts small and doubles, so a query
 * of a few sites allocates a few rows. Not thread-safe: one worker writes a bucket, the build reads it after the barrier.
 */
final class DealtRows {

    /** Rows per chunk: 2^{@value #ROW_BITS}. */
    static final int ROW_BITS = 10;
    static final int CHUNK_ROWS = 1 << ROW_BITS;
    private static final int ROW_MASK = CHUNK_ROWS - 1;
    /** Bytes of a key chunk (one key longer than that gets a chunk of its own size); a key's start within it fits these bits. */
    private static final int BYTE_BITS = 16;
    static final int BYTE_CHUNK = 1 << BYTE_BITS;
    /** Key chunks a bucket may have: a row's key is its chunk above its start, in 32 bits. */
    private static final int MAX_BYTE_CHUNKS = 1 << (Integer.SIZE - BYTE_BITS);
    private static final int FIRST_ROWS = 16;
    private static final int FIRST_BYTES = 256;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    final int slots;
    private int rows;
    /** Key bytes dealt (the keys' lengths, summed). */
    private long keyBytes;
    /** Per chunk, per row: its key's hash above its key chunk and the start of its entry there. */
    private long[][] keys = new long[4][];
    /** Per chunk: its rows' slots, {@link #slots} per row. */
    private long[][] values = new long[4][];
    /** Each key's entry: its length (an int), then its bytes. */
    private byte[][] bytes = new byte[4][];
    private int byteChunk = -1;
    private int byteUsed;
    /**
     * The chunks {@link #add} writes into, and the row at which the row chunk is full: held apart from {@link #keys},
     * {@link #values} and {@link #bytes} so that an add reads no outer array. A deal adds to hundreds of buckets in turn,
     * and those reads (and each chunk's length) were a fifth of its cost in the scan's profile.
     */
    private long[] addKeys;
    private long[] addValues;
    private int addEnd;
    private byte[] addBytes = new byte[0];
    private final int firstRows;
    private final int firstBytes;

    DealtRows(int slots) {
        this(slots, FIRST_ROWS, 40);
    }

    /** A bucket expecting about {@code expectedRows} rows of keys of about {@code bytesEach} bytes: its first chunk sized to them. */
    DealtRows(int slots, int expectedRows, int bytesEach) {
        this.slots = slots;
        this.firstRows = Math.max(FIRST_ROWS, Math.min(CHUNK_ROWS, expectedRows));
        this.firstBytes = (int) Math.max(FIRST_BYTES, Math.min(BYTE_CHUNK, (long) firstRows * (Integer.BYTES + bytesEach)));
    }

    /** Adds a row with this key (its hash, its bytes); returns its number. Its slots are {@link #values}{@code (row)} from {@link #valuesAt}. */
    int add(int hash, byte[] from, int offset, int length) {
        if (rows == addEnd) {
            roomForRow();
        }
        int entry = Integer.BYTES + length;
        int at = byteUsed;
        if (at + entry > addBytes.length) {
            roomForBytes(entry);
            at = byteUsed;
        }
        byte[] b = addBytes;
        INT.set(b, at, length);
        System.arraycopy(from, offset, b, at + Integer.BYTES, length);
        addKeys[rows & ROW_MASK] = (long) hash << 32 | ((long) byteChunk << BYTE_BITS | at);
        byteUsed = at + entry;
        keyBytes += length;
        return rows++;
    }

    /** The array holding the slots of the row {@link #add} returned last (as {@link #values}, without its lookup). */
    long[] lastValues() {
        return addValues;
    }

    int rows() {
        return rows;
    }

    /** The keys' bytes dealt, summed: with {@link #rows}, how long a key is on average. */
    long keyBytes() {
        return keyBytes;
    }

    /** The array holding row {@code row}'s slots. */
    long[] values(int row) {
        return values[row >>> ROW_BITS];
    }

    /** Where row {@code row}'s slots start in {@link #values}{@code (row)}. */
    int valuesAt(int row) {
        return (row & ROW_MASK) * slots;
    }

    int hash(int row) {
        return (int) (key(row) >>> 32);
    }

    /** The array holding row {@code row}'s key bytes. */
    byte[] keyBytes(int row) {
        return bytes[(int) key(row) >>> BYTE_BITS];
    }

    /** Where row {@code row}'s key bytes start in {@link #keyBytes}{@code (row)}. */
    int keyStart(int row) {
        return ((int) key(row) & (BYTE_CHUNK - 1)) + Integer.BYTES;
    }

    int keyLength(int row) {
        long k = key(row);
        return (int) INT.get(bytes[(int) k >>> BYTE_BITS], (int) k & (BYTE_CHUNK - 1));
    }

    private long key(int row) {
        return keys[row >>> ROW_BITS][row & ROW_MASK];
    }

    /** Called when the row chunk is full: the next chunk, or the first one grown (only it starts short of a whole one). */
    private void roomForRow() {
        int chunk = rows >>> ROW_BITS;
        if (chunk == keys.length) {
            keys = Arrays.copyOf(keys, 2 * chunk);
            values = Arrays.copyOf(values, 2 * chunk);
        }
        long[] k = keys[chunk];
        if (k == null) {
            int n = chunk == 0 ? firstRows : CHUNK_ROWS;
            keys[chunk] = new long[n];
            values[chunk] = new long[n * slots];
        } else {
            int n = Math.min(CHUNK_ROWS, 2 * k.length);
            keys[chunk] = Arrays.copyOf(k, n);
            values[chunk] = Arrays.copyOf(values[chunk], n * slots);
        }
        addKeys = keys[chunk];
        addValues = values[chunk];
        addEnd = (chunk << ROW_BITS) + addKeys.length;
    }

    /** Called when the key chunk has no room for an entry of {@code entry} bytes. */
    private void roomForBytes(int entry) {
        if (byteChunk >= 0) {
            int length = addBytes.length;
            if (length < BYTE_CHUNK && byteUsed + entry <= BYTE_CHUNK) { // the first chunk, short of a whole one
                addBytes = bytes[byteChunk] = Arrays.copyOf(addBytes, Math.min(BYTE_CHUNK, Math.max(2 * length, byteUsed + entry)));
                return;
            }
        }
        if (byteChunk + 1 == MAX_BYTE_CHUNKS) {
            throw new IllegalStateException("a deal bucket holds " + MAX_BYTE_CHUNKS + " chunks of key bytes (" + keyBytes
                    + " bytes of keys), its most: scope the query (--from, --namespace) to fewer records");
        }
        byteChunk++;
        if (byteChunk == bytes.length) {
            bytes = Arrays.copyOf(bytes, 2 * byteChunk);
        }
        addBytes = bytes[byteChunk] = new byte[Math.max(byteChunk == 0 ? firstBytes : BYTE_CHUNK, entry)];
        byteUsed = 0;
    }
}
