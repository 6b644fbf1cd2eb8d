package dev.baton.morsel.history;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Whether a history record's key is well-formed UTF-8, as every key Baton writes is ({@code SiteKey}: the streams app
 * writes a site's records under the UTF-8 of its key string). The scans intern a key by its bytes and report it by its
 * decoded string, which is one site per key only while the bytes are well-formed: two ill-formed keys can decode to the
 * same string. A record with such a key was not written by Baton and is counted as undecodable instead
 * (docs/decisions.md, "The projected decode's open defects").
 *
 * <p>A string in a record's value is read as the reference reads it instead ({@link #decoded}): the record is
 * Baton's, but a string in it that is not well-formed takes the form Avro's reader gives it.
 *
 * <p>Keys are ASCII in every Baton write, so they are checked eight bytes at a time, and only a key with a byte past
 * ASCII is validated in full (Unicode's well-formed sequences, what Java's UTF-8 decoder accepts without replacing).
 */
final class Utf8Keys {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8Keys() {
    }

    /** The remaining bytes of {@code key} (neither it nor its position is kept or moved); a null key is no string to check. */
    static boolean wellFormed(ByteBuffer key) {
        if (key == null) {
            return true;
        }
        if (!key.hasArray()) {
            byte[] copy = new byte[key.remaining()];
            key.duplicate().get(copy);
            return wellFormed(copy, 0, copy.length);
        }
        int from = key.arrayOffset() + key.position();
        return wellFormed(key.array(), from, from + key.remaining());
    }

    /**
     * The UTF-8 of the string ill-formed bytes decode to, replacement characters and all: what Avro's reader and
     * {@code EventSerde} make of a value string that is not {@link #wellFormed} (every string Baton writes is), so
     * strings that decode alike intern alike. Callers check {@link #wellFormed} first and copy nothing when it is.
     */
    static byte[] decoded(byte[] a, int offset, int length) {
        return new String(a, offset, length, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }

    static boolean wellFormed(byte[] a, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            if (((long) LONGS.get(a, i) & HIGH_BITS) != 0) {
                return validate(a, i, to); // the bytes before i are ASCII: i starts a character
            }
        }
        for (; i < to; i++) {
            if (a[i] < 0) {
                return validate(a, i, to);
            }
        }
        return true;
    }

    /** Unicode's table of well-formed UTF-8 byte sequences: no overlong form, no surrogate, nothing past U+10FFFF. */
    private static boolean validate(byte[] a, int i, int to) {
        while (i < to) {
            int b = a[i] & 0xff;
            if (b < 0x80) {
                i++;
                continue;
            }
            int trailing;
            int low = 0x80;
            int high = 0xbf;
            if (b >= 0xc2 && b <= 0xdf) {
                trailing = 1;
            } else if (b >= 0xe0 && b <= 0xef) {
                trailing = 2;
                low = b == 0xe0 ? 0xa0 : 0x80;
                high = b == 0xed ? 0x9f : 0xbf;
            } else if (b >= 0xf0 && b <= 0xf4) {
                trailing = 3;
                low = b == 0xf0 ? 0x90 : 0x80;
                high = b == 0xf4 ? 0x8f : 0xbf;
            } else {
                return false;
            }
            if (to - i <= trailing) {
                return false;
            }
            int second = a[i + 1] & 0xff;
            if (second < low || second > high) {
                return false;
            }
            for (int k = 2; k <= trailing; k++) {
                int next = a[i + k] & 0xff;
                if (next < 0x80 || next > 0xbf) {
                    return false;
                }
            }
            i += trailing + 1;
        }
        return true;
    }
}
