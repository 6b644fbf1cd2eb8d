package dev.baton.morsel.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.avro.util.Utf8;

/**
 * A query's dictionary of strings: the column operators carry longs, so a projected string field
 * (a site key, a request id, a queue) becomes its id here and turns back into the string when the
 * answer is read. Id 0 is null; ids are nearly dense from 1 (segments fill evenly), so group keys
 * stay small. Thread-safe: the scan's workers intern concurrently.
 *
 * <p>Strings are kept as UTF-8 bytes in a few large arrays per segment, found through an
 * open-addressing table of ints: a history of 10 million records interns ~6.5 million site keys and
 * request ids, which as hash-map entries of boxed objects took ~1.5 GiB (and replay ran out of a
 * 2 GiB heap); here they take their bytes plus ~30 bytes each.
 */
final class StringIds {

    static final long NULL = 0;
    /**
     * Segments, each with its own lock: the scan's workers rarely wait for one another. A string's segment is its
     * hash's low bits, so a scan can deal strings by segment and intern each segment's share apart ({@link #idIn}).
     */
    static final int SEGMENTS = 64;

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final Segment[] segments = new Segment[SEGMENTS];

    StringIds() {
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment();
        }
    }

    /**
     * Makes room for {@code strings} strings in all, of about {@code bytesEach} bytes, so a scan that knows its size
     * (a whole history: a site key and a request id per few records) does not grow every segment's arrays by
     * doubling while it runs: each doubling is a copy, and on a long scan the copies are what the collector carries
     * (docs/decisions.md, "A long replay's collector"). In all, not more: a second scan of the same history interns
     * the same strings.
     */
    void expect(long strings, int bytesEach) {
        long each = strings / SEGMENTS + 1;
        for (Segment segment : segments) {
            segment.expect(each, bytesEach);
        }
    }

    long id(String s) {
        if (s == null) {
            return NULL;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        return id(utf8, utf8.length);
    }

    /** The id of these bytes; {@code s} may be a reused buffer, it is not kept. */
    long id(Utf8 s) {
        return s == null ? NULL : id(s.getBytes(), s.getByteLength());
    }

    /** The id of the string these UTF-8 bytes spell (a record key); the array is not kept. */
    long id(byte[] utf8) {
        return utf8 == null ? NULL : id(utf8, utf8.length);
    }

    /** The id of the string the first {@code length} bytes spell; the array is not kept. */
    long id(byte[] bytes, int length) {
        return id(bytes, 0, length);
    }

    /** The id of the string {@code length} bytes from {@code offset} spell (a key inside a fetched batch); the array is not kept. */
    long id(byte[] bytes, int offset, int length) {
        int hash = hash(bytes, offset, length);
        int segment = hash & (SEGMENTS - 1);
        long local = segments[segment].intern(bytes, offset, length, hash);
        return local * SEGMENTS + segment + 1;
    }

    /** The segment a string of this {@link #hash} is interned in. */
    static int segmentOf(int hash) {
        return hash & (SEGMENTS - 1);
    }

    /**
     * The segment-local index of the string {@code length} bytes from {@code offset} spell, whose {@link #hash} is
     * {@code hash} and whose segment is {@code segment} ({@link #segmentOf}): what {@link #id(byte[], int, int)}
     * answers, as {@link #idOf}{@code (segment, local)}, without hashing again.
     */
    int localIn(int segment, byte[] bytes, int offset, int length, int hash) {
        return (int) segments[segment].intern(bytes, offset, length, hash);
    }

    /** The id of segment {@code segment}'s string {@code local}: ids of one segment ascend with their local index. */
    static long idOf(int segment, long local) {
        return local * SEGMENTS + segment + 1;
    }

    /** Makes room in segment {@code segment} for {@code more} strings beyond those it holds, of about {@code bytesEach} bytes. */
    void expectIn(int segment, long more, int bytesEach) {
        segments[segment].expectMore(more, bytesEach);
    }

    String string(long id) {
        if (id == NULL) {
            return null;
        }
        String s = id < 0 ? null : segments[(int) ((id - 1) % SEGMENTS)].string((int) ((id - 1) / SEGMENTS));
        if (s == null) {
            throw new IllegalArgumentException("no string has id " + id + " in this dictionary");
        }
        return s;
    }

    /**
     * Eight bytes a step: a byte-at-a-time polynomial is one multiply per byte in a chain, and the
     * site keys and request ids a scan interns are 15-50 bytes; a string of eight bytes or more ends
     * with its last eight, read at once. The finish spreads every input bit
     * into the low bits, which choose the segment and the slot.
     */
    static int hash(byte[] bytes, int length) {
        return hash(bytes, 0, length);
    }

    static int hash(byte[] bytes, int offset, int length) {
        long h = length;
        int i = offset;
        int end = offset + length;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            h = (Long.rotateLeft(h, 5) ^ (long) LONG.get(bytes, i)) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        if (i < end && length >= Long.BYTES) {
            tail = (long) LONG.get(bytes, end - Long.BYTES); // the last eight bytes, some hashed above already: one read, not a byte loop
        } else {
            for (; i < end; i++) {
                tail = tail << 8 | (bytes[i] & 0xff);
            }
        }
        h = (Long.rotateLeft(h, 5) ^ tail) * 0x9E3779B97F4A7C15L;
        h ^= h >>> 33; // MurmurHash3's 64-bit finish
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h;
    }

    /**
     * Whether the {@code length} bytes at {@code at} of {@code a} equal those at {@code offset} of {@code b}: eight at a
     * time, the last eight at once. The strings a scan interns are keys and ids of 15-50 bytes, where the call and set-up of
     * {@link Arrays#equals}' vectorized compare cost more than the compare.
     */
    static boolean sameBytes(byte[] a, int at, byte[] b, int offset, int length) {
        if (length < Long.BYTES) {
            return Arrays.equals(a, at, at + length, b, offset, offset + length);
        }
        int last = length - Long.BYTES;
        for (int i = 0; i < last; i += Long.BYTES) {
            if ((long) LONG.get(a, at + i) != (long) LONG.get(b, offset + i)) {
                return false;
            }
        }
        return (long) LONG.get(a, at + last) == (long) LONG.get(b, offset + last);
    }

    /**
     * One lock's share of the strings: each one's entry ({@code [index][length][bytes]}, the two
     * ints little-endian) end to end in one array, and a table from hash to entry. A slot holds the
     * string's hash beside where its entry starts, so a probe compares hashes without touching
     * another array and a match reads one place: on a table of a million strings each array read is
     * a cache miss.
     */
    private static final class Segment {

        private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
        private static final int HEADER = 2 * Integer.BYTES;

        private byte[] bytes = new byte[1 << 12];
        private int used;
        /** Where string i's entry starts in {@link #bytes}. */
        private int[] starts = new int[1 << 6];
        private int count;
        /** {@code hash << 32 | entry start + 1} of the string in each slot, 0 when empty; at most half full. */
        private long[] slots = new long[1 << 7];

        synchronized long intern(byte[] s, int offset, int length, int hash) {
            int mask = slots.length - 1;
            for (int slot = (hash >>> 6) & mask; ; slot = (slot + 1) & mask) {
                long entry = slots[slot];
                if (entry == 0) {
                    return add(s, offset, length, hash, slot);
                }
                int start = (int) entry - 1;
                if ((int) (entry >>> 32) == hash && equals(start, s, offset, length)) {
                    return (int) INT.get(bytes, start);
                }
            }
        }

        synchronized void expect(long strings, int bytesEach) {
            if (strings <= count || strings > Integer.MAX_VALUE / 4) {
                return; // room enough already, or beyond what one segment can index: it grows as strings come
            }
            if (strings > starts.length) {
                starts = Arrays.copyOf(starts, (int) strings);
            }
            long room = used + (strings - count) * (HEADER + bytesEach);
            if (room > bytes.length && room <= Integer.MAX_VALUE - 8) {
                bytes = Arrays.copyOf(bytes, (int) room);
            }
            int size = slots.length;
            while (2 * strings > size) {
                size *= 2;
            }
            if (size > slots.length) {
                rehash(size); // once to the size asked for, not through every doubling between
            }
        }

        synchronized void expectMore(long more, int bytesEach) {
            expect(count + more, bytesEach);
        }

        synchronized String string(int index) {
            if (index >= count) {
                return null;
            }
            int start = starts[index];
            return new String(bytes, start + HEADER, (int) INT.get(bytes, start + Integer.BYTES), StandardCharsets.UTF_8);
        }

        private boolean equals(int start, byte[] s, int offset, int length) {
            int from = start + HEADER;
            return (int) INT.get(bytes, start + Integer.BYTES) == length && sameBytes(bytes, from, s, offset, length);
        }

        private int add(byte[] s, int offset, int length, int hash, int slot) {
            if (used + HEADER + length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(used + HEADER + length, 2 * bytes.length));
            }
            if (count == starts.length) {
                starts = Arrays.copyOf(starts, 2 * count);
            }
            int index = count++;
            int start = used;
            INT.set(bytes, start, index);
            INT.set(bytes, start + Integer.BYTES, length);
            System.arraycopy(s, offset, bytes, start + HEADER, length);
            used += HEADER + length;
            starts[index] = start;
            slots[slot] = (long) hash << 32 | (start + 1);
            if (2 * count > slots.length) {
                rehash(2 * slots.length);
            }
            return index;
        }

        private void rehash(int size) {
            long[] grown = new long[size];
            int mask = grown.length - 1;
            for (long entry : slots) {
                if (entry != 0) {
                    int slot = ((int) (entry >>> 32) >>> 6) & mask;
                    while (grown[slot] != 0) {
                        slot = (slot + 1) & mask;
                    }
                    grown[slot] = entry;
                }
            }
            slots = grown;
        }
    }
}
