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
        return format((counter.getAndIncrement() & VARIANT_MASK) | VARIANT_RFC);
    }

    /**
     * The low half of {@code requestId} if it is in the exact form this instance hands out (its high half, lowercase
     * hex, dashes where {@link UUID#toString()} puts them), else {@code null}. So two strings map to one value only if
     * they are equal: a waiting dispatch can be found by the 16-byte {@code Long} instead of its id's 80-byte string.
     */
    Long lowOf(String requestId) {
        if (requestId.length() != 36) {
            return null;
        }
        if (requestId.charAt(8) != '-' || requestId.charAt(13) != '-' || requestId.charAt(18) != '-' || requestId.charAt(23) != '-') {
            return null;
        }
        long g1 = hex(requestId, 0, 8);
        long g2 = hex(requestId, 9, 13);
        long g3 = hex(requestId, 14, 18);
        long g4 = hex(requestId, 19, 23);
        long g5 = hex(requestId, 24, 36);
        if ((g1 | g2 | g3 | g4 | g5) < 0 || (g1 << 32 | g2 << 16 | g3) != high) {
            return null; // not hex (each group is below 2^48, so only a -1 makes the or negative), or another instance's
        }
        return g4 << 48 | g5;
    }

    /** The request id whose low half is {@code low}, as {@link #next()} wrote it. */
    String format(long low) {
        return new UUID(high, low).toString();
    }

    /** The value of lowercase hex digits {@code from ..< to} (at most 15), or -1 if any other character is there. */
    private static long hex(String s, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) {
                return -1;
            }
            value = value << 4 | digit;
        }
        return value;
    }
}
