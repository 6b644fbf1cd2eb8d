package dev.baton.morsel.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The strings of the page one worker is decoding, kept beside its rows: a row's string column holds a reference here
 * ({@link #NULL} for a null string) instead of a dictionary id, so a scan copies a key's bytes once per page and finds
 * no id per record. Each string is stored with its {@link StringIds#hash}, which a deal then reads instead of hashing
 * again. A string is stored once per page: adding it again gives its first reference, whether it was the string just
 * added (a site's adjacent records, checked first, by hash) or one further back (a site's events among other
 * sites', as a running platform writes them), so rows of one page with equal strings have equal references and a
 * {@link dev.baton.morsel.operator.RunCombine} folds adjacent ones by their column alone. Each entry is numbered in the
 * order added ({@link #entry}), within a page numbered apart from every other ({@link #page}): what a
 * {@link SegmentDeal} keys the row it made of a string by, to fold the string's later rows of the page into it.
 *
 * <p>References are valid until {@link #clear}, which the worker's decoder calls as it starts its next page (after
 * the previous one has gone through the pipeline). Not thread-safe: one per worker.
 */
final class PageStrings {

    /** The reference of a null string. */
    static final long NULL = -1;
    /** What {@link #addWellFormed} answers for bytes that are not well-formed UTF-8. */
    static final long ILL_FORMED = -2;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** An entry: its hash, its length, its number in the page, then its bytes. */
    private static final int HEADER = 3 * Integer.BYTES;
    private static final int ENTRY = 2 * Integer.BYTES;
    /** Index bits below these are the string's {@link StringIds} segment, the same for every string of a bucket. */
    private static final int SEGMENT_BITS = Integer.numberOfTrailingZeros(StringIds.SEGMENTS);
    /** What {@link #find} answers when this instance looks up only the string just added. */
    private static final int NOT_LOOKED_UP = -1;

    private byte[] bytes = new byte[1 << 16];
    private int used;
    private int last = -1;
    /**
     * This page's entries by hash, open addressing: {@code generation << 32 | where the entry starts + 1}. Slots of
     * earlier generations count as empty, so a page starts without clearing the table; null for a last-only instance.
     */
    private long[] index;
    /** The strings added to this page. */
    private int indexed;
    /** This page's number in the index's slots: it starts again at 1 after ~2 billion pages, the index then emptied. */
    private int generation = 1;
    /** This page's number for users of {@link #page}: never repeats (2^63 pages). */
    private long page = 1;

    /** Strings stored once per page: every earlier one is looked up (a group key of an aggregate that folds a page's rows). */
    PageStrings() {
        this(true);
    }

    private PageStrings(boolean onePerPage) {
        this.index = onePerPage ? new long[1 << 12] : null;
    }

    /** One per worker of {@link #PageStrings()}. */
    static PageStrings[] perWorker(int workers) {
        PageStrings[] s = new PageStrings[workers];
        for (int w = 0; w < workers; w++) {
            s[w] = new PageStrings();
        }
        return s;
    }

    /**
     * One per worker of strings that repeat rarely but for the one just added (request ids): a repeat further back is
     * stored again, a new reference, which saves a lookup per string that would seldom find one.
     */
    static PageStrings[] perWorkerLastOnly(int workers) {
        PageStrings[] s = new PageStrings[workers];
        for (int w = 0; w < workers; w++) {
            s[w] = new PageStrings(false);
        }
        return s;
    }

    void clear() {
        used = 0;
        last = -1;
        indexed = 0;
        page++;
        if (++generation == Integer.MAX_VALUE) { // after ~2 billion pages: a stale slot must never match a page again
            generation = 1;
            if (index != null) {
                Arrays.fill(index, 0);
            }
        }
    }

    /**
     * As {@link #add(byte[], int, int)}, in the string's decoded form ({@link Utf8Keys#decoded}) when the bytes are not
     * well-formed: a string of a record's value, as the reference reads it. A repeat of the last string is not checked
     * again: every entry of a page is well-formed (this form, or a key the decoder checked), and so are bytes equal to one.
     */
    long addDecodedForm(byte[] from, int offset, int length) {
        int hash = StringIds.hash(from, offset, length);
        if (isLast(from, offset, length, hash)) {
            return last;
        }
        int slot = find(from, offset, length, hash);
        if (found(slot)) {
            return last = entry(slot);
        }
        if (!Utf8Keys.wellFormed(from, offset, offset + length)) {
            byte[] decoded = Utf8Keys.decoded(from, offset, length);
            return add(decoded, 0, decoded.length);
        }
        return append(from, offset, length, hash, slot);
    }

    /**
     * As {@link #add(ByteBuffer)}, if the bytes are well-formed UTF-8 ({@link Utf8Keys#wellFormed}), else nothing is
     * added and the answer is {@link #ILL_FORMED}: a history record's key, which the history queries refuse otherwise. A
     * repeat of the last string is not checked again: a page's keys come in runs of a site's records, and the first of
     * the run was checked (this is the only way keys are added to their page).
     */
    long addWellFormed(ByteBuffer utf8) {
        if (utf8 == null) {
            return NULL;
        }
        if (!utf8.hasArray()) {
            byte[] copy = new byte[utf8.remaining()];
            utf8.duplicate().get(copy);
            return addWellFormed(copy, 0, copy.length);
        }
        return addWellFormed(utf8.array(), utf8.arrayOffset() + utf8.position(), utf8.remaining());
    }

    private long addWellFormed(byte[] from, int offset, int length) {
        int hash = StringIds.hash(from, offset, length);
        if (isLast(from, offset, length, hash)) {
            return last;
        }
        int slot = find(from, offset, length, hash);
        if (found(slot)) {
            return last = entry(slot);
        }
        return Utf8Keys.wellFormed(from, offset, offset + length) ? append(from, offset, length, hash, slot) : ILL_FORMED;
    }

    /** The remaining bytes of {@code utf8} (a record's key read in place; neither it nor its position is kept or moved). */
    long add(ByteBuffer utf8) {
        if (utf8 == null) {
            return NULL;
        }
        if (!utf8.hasArray()) {
            byte[] copy = new byte[utf8.remaining()];
            utf8.duplicate().get(copy);
            return add(copy, 0, copy.length);
        }
        return add(utf8.array(), utf8.arrayOffset() + utf8.position(), utf8.remaining());
    }

    long add(byte[] from, int offset, int length) {
        int hash = StringIds.hash(from, offset, length);
        if (isLast(from, offset, length, hash)) {
            return last;
        }
        int slot = find(from, offset, length, hash);
        return found(slot) ? (last = entry(slot)) : append(from, offset, length, hash, slot);
    }

    /** Whether the string is the one just added: its hash first, since keys of one workflow share their first bytes. */
    private boolean isLast(byte[] from, int offset, int length, int hash) {
        return last >= 0 && hash(last) == hash && length(last) == length && StringIds.sameBytes(bytes, last + HEADER, from, offset, length);
    }

    /**
     * The index slot that holds this page's entry of the string, or the empty slot where it goes: the probe starts at the
     * hash's bits above its segment's.
     */
    private int find(byte[] from, int offset, int length, int hash) {
        if (index == null) {
            return NOT_LOOKED_UP;
        }
        int mask = index.length - 1;
        for (int slot = (hash >>> SEGMENT_BITS) & mask; ; slot = (slot + 1) & mask) {
            long e = index[slot];
            if ((int) (e >>> 32) != generation) {
                index[slot] = 0; // an earlier page's: empty for this one
                return slot;
            }
            int at = (int) e - 1;
            if (hash(at) == hash && length(at) == length && StringIds.sameBytes(bytes, at + HEADER, from, offset, length)) {
                return slot;
            }
        }
    }

    /** Whether {@link #find} found the string at {@code slot}. */
    private boolean found(int slot) {
        return slot != NOT_LOOKED_UP && index[slot] != 0;
    }

    private int entry(int slot) {
        return (int) index[slot] - 1;
    }

    private long append(byte[] from, int offset, int length, int hash, int slot) {
        if (used + HEADER + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(used + HEADER + length, 2 * bytes.length));
        }
        int at = used;
        INT.set(bytes, at, hash);
        INT.set(bytes, at + Integer.BYTES, length);
        INT.set(bytes, at + ENTRY, indexed);
        System.arraycopy(from, offset, bytes, at + HEADER, length);
        used += HEADER + length;
        last = at;
        indexed++;
        if (slot != NOT_LOOKED_UP) {
            index[slot] = (long) generation << 32 | (at + 1);
            if (indexed > index.length / 2) {
                grow();
            }
        }
        return at;
    }

    /** Twice the slots, this page's entries placed again (earlier pages' are dropped). */
    private void grow() {
        long[] old = index;
        index = new long[2 * old.length];
        int mask = index.length - 1;
        for (long e : old) {
            if ((int) (e >>> 32) == generation) {
                int slot = (hash((int) e - 1) >>> SEGMENT_BITS) & mask;
                while (index[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                index[slot] = e;
            }
        }
    }

    /** The number of the string at {@code ref} among this page's: 0 for the first added, then 1, 2, and so on. */
    int entry(long ref) {
        return (int) INT.get(bytes, (int) ref + ENTRY);
    }

    /** The strings added to this page so far. */
    int entries() {
        return indexed;
    }

    /** This page's number: it goes up by one at every {@link #clear}, from 1, so no two pages of this instance share one. */
    long page() {
        return page;
    }

    /** The entries' array: a reference's bytes start at {@code ref + }{@link #HEADER}; valid until the next add. */
    byte[] bytes() {
        return bytes;
    }

    int hash(long ref) {
        return (int) INT.get(bytes, (int) ref);
    }

    int length(long ref) {
        return (int) INT.get(bytes, (int) ref + Integer.BYTES);
    }

    static int start(long ref) {
        return (int) ref + HEADER;
    }
}
