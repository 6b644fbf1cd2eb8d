package dev.baton.morsel.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The strings of the page one worker is decoding, kept beside its rows: a row's string column holds a reference here
 * ({@link #NULL} for a null string) instead of a dictionary id, so a scan copies a key's bytes once and finds no id per
 * record. Each string is stored with its {@link StringIds#hash}, which a deal then reads instead of hashing again. The
 * string just added, added again, gives the same reference (a partition holds a site's records together), so rows with
 * equal adjacent strings have equal references and a {@link dev.baton.morsel.operator.RunCombine} can fold them by
 * their column alone; equal strings further apart may have different references.
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
    /** An entry: its hash, its length, then its bytes. */
    private static final int HEADER = 2 * Integer.BYTES;

    private byte[] bytes = new byte[1 << 16];
    private int used;
    private int last = -1;

    static PageStrings[] perWorker(int workers) {
        PageStrings[] s = new PageStrings[workers];
        for (int w = 0; w < workers; w++) {
            s[w] = new PageStrings();
        }
        return s;
    }

    void clear() {
        used = 0;
        last = -1;
    }

    /**
     * As {@link #add(byte[], int, int)}, in the string's decoded form ({@link Utf8Keys#decoded}) when the bytes are not
     * well-formed: a string of a record's value, as the reference reads it. A repeat of the last string is not checked
     * again: every entry of a page is well-formed (this form, or a key the decoder checked), and so are bytes equal to one.
     */
    long addDecodedForm(byte[] from, int offset, int length) {
        if (isLast(from, offset, length)) {
            return last;
        }
        if (!Utf8Keys.wellFormed(from, offset, offset + length)) {
            byte[] decoded = Utf8Keys.decoded(from, offset, length);
            return add(decoded, 0, decoded.length);
        }
        return append(from, offset, length);
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
        if (isLast(from, offset, length)) {
            return last;
        }
        return Utf8Keys.wellFormed(from, offset, offset + length) ? append(from, offset, length) : ILL_FORMED;
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
        return isLast(from, offset, length) ? last : append(from, offset, length);
    }

    private boolean isLast(byte[] from, int offset, int length) {
        return last >= 0 && length(last) == length && Arrays.equals(bytes, last + HEADER, last + HEADER + length, from, offset, offset + length);
    }

    private long append(byte[] from, int offset, int length) {
        if (used + HEADER + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(used + HEADER + length, 2 * bytes.length));
        }
        int at = used;
        INT.set(bytes, at, StringIds.hash(from, offset, length));
        INT.set(bytes, at + Integer.BYTES, length);
        System.arraycopy(from, offset, bytes, at + HEADER, length);
        used += HEADER + length;
        last = at;
        return at;
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
