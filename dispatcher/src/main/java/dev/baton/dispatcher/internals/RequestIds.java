package dev.baton.dispatcher.internals;

import java.security.SecureRandom;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request ids of one client: unique across clients and restarts, not secret. Thread-safe.
 *
 * <p>A request id names a request to the streams app and to its caller; it authorizes nothing.
 * Completion tokens are the secrets (DESIGN.md section 2); a dispatcher may already cancel or take
 * over any site, and every client reading a results partition sees the request ids of the others
 * mapped to it. So an id need not be unguessable, only never reused: a reused id would join two
 * requests' answers. Each id is a 128-bit UUID in the usual form: the high half drawn from
 * {@link SecureRandom} once per instance, the low half a counter from a random start. Two
 * instances share ids only if they drew the same 60 random high bits and overlapping counter
 * ranges; a random UUID per request cost a lock and a read of {@code /dev/urandom} each
 * (docs/decisions.md, issue 29).
 *
 * <p>The UUID is version 8 (RFC 9562's layout of the implementer's own): it is not 122 random bits,
 * so it does not claim to be version 4.
 */
public final class RequestIds {

    private static final long VERSION_MASK = 0xFFFF_FFFF_FFFF_0FFFL;
    private static final long VERSION_8 = 0x0000_0000_0000_8000L;
    private static final long VARIANT_MASK = 0x3FFF_FFFF_FFFF_FFFFL;
    private static final long VARIANT_RFC = 0x8000_0000_0000_0000L;

    private final long high;
    private final AtomicLong counter;

    public RequestIds() {
        this(new SecureRandom());
    }

    /** Ids drawn from {@code seed} (tests pass a seeded one to see what two instances do). */
    RequestIds(Random seed) {
        this.high = (seed.nextLong() & VERSION_MASK) | VERSION_8;
        this.counter = new AtomicLong(seed.nextLong());
    }

    /** A request id never handed out before by this instance (until 2^62 of them). */
    public String next() {
        return new UUID(high, (counter.getAndIncrement() & VARIANT_MASK) | VARIANT_RFC).toString();
    }

    /**
     * The high half of {@code id} if it has the form of an id this class makes (36 characters, lowercase hex, version 8,
     * RFC variant), 0 otherwise: a made id's high half is never 0 (its version bits are set). Strict, so two ids of this
     * form are equal exactly when their halves are.
     */
    static long highOf(String id) {
        if (!hasMadeForm(id)) {
            return 0L;
        }
        long v = 0;
        int bad = 0;
        for (int i = 0; i < 18; i++) {
            if (i == 8 || i == 13) {
                continue;
            }
            int d = digit(id.charAt(i));
            bad |= d;
            v = (v << 4) | (d & 0xF);
        }
        return bad < 0 || (v & ~VERSION_MASK) != VERSION_8 ? 0L : v;
    }

    /** The low half (the counter) of {@code id} as {@link #highOf} reads it, 0 if not of that form (a made one has its variant bits set). */
    static long lowOf(String id) {
        if (!hasMadeForm(id)) {
            return 0L;
        }
        long v = 0;
        int bad = 0;
        for (int i = 19; i < 36; i++) {
            if (i == 23) {
                continue;
            }
            int d = digit(id.charAt(i));
            bad |= d;
            v = (v << 4) | (d & 0xF);
        }
        return bad < 0 || (v & ~VARIANT_MASK) != VARIANT_RFC ? 0L : v;
    }

    private static boolean hasMadeForm(String id) {
        return id.length() == 36 && id.charAt(8) == '-' && id.charAt(13) == '-' && id.charAt(18) == '-' && id.charAt(23) == '-';
    }

    /** A lowercase hex digit's value, -1 for any other character (as {@link UUID#toString} writes them). */
    private static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }
}
