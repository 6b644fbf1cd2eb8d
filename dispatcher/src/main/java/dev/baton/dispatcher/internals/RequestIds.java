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
}
