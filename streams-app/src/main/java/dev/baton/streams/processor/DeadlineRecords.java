package dev.baton.streams.processor;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import dev.baton.schemas.SiteKey;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.state.DeadlineIndex.Due;
import dev.baton.streams.state.DeadlineKind;

/**
 * Deadline records, the at-least-once mode's way to fire a deadline: the punctuator writes one for a
 * due deadline to the task's own worker-events partition, and the deadline fires when the task reads
 * it back. Its header holds the deadline: kind (1 byte), due time (8 bytes), then the site key.
 *
 * <p>A schedule-to-start record also carries the census its firing reports (another header: records
 * written before it existed still parse). The census is not part of the input, so a firing read again
 * after a crash would count anew, and could name another cause than the outcome already delivered.
 * A record also names the input that armed its deadline ({@link DeadlineArm}, a third header).
 *
 * <p>One instance per processor keeps the records on their way, so a deadline is requested once and
 * again only if its record did not come back within {@link #RESEND_AFTER_MS} (lost in a crash, say);
 * a restarted task starts with none and requests what its restored index says is due.
 */
final class DeadlineRecords {

    static final long RESEND_AFTER_MS = 1_000;

    private final Map<Due, Long> requested = new HashMap<>();

    boolean shouldRequest(Due due, long nowMillis) {
        Long at = requested.get(due);
        return at == null || nowMillis - at >= RESEND_AFTER_MS;
    }

    void requested(Due due, long nowMillis) {
        requested.put(due, nowMillis);
    }

    void read(Due due) {
        requested.remove(due);
    }

    static byte[] header(Due due) {
        byte[] site = due.site().toBytes();
        return ByteBuffer.allocate(1 + Long.BYTES + site.length).put((byte) due.kind().ordinal()).putLong(due.atMillis()).put(site).array();
    }

    static byte[] census(int liveWorkers) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(liveWorkers).array();
    }

    /** What a record asks besides its deadline (its census and arming input), read from its headers. */
    static DeadlineRules.Request request(Headers headers) {
        Header census = headers.lastHeader(TopologyNames.DEADLINE_CENSUS_HEADER);
        Header armedBy = headers.lastHeader(TopologyNames.DEADLINE_ARMED_BY_HEADER);
        return new DeadlineRules.Request(parseCensus(census == null ? null : census.value()),
                armedBy == null ? Optional.empty() : DeadlineArm.parse(armedBy.value()));
    }

    /** The census a record carries; empty for none, or for a value no task wrote. */
    static OptionalInt parseCensus(byte[] header) {
        if (header == null || header.length != Integer.BYTES) {
            return OptionalInt.empty();
        }
        int live = ByteBuffer.wrap(header).getInt();
        return live < 0 ? OptionalInt.empty() : OptionalInt.of(live);
    }

    /** The deadline a header names; empty for a header no task wrote (too short, unknown kind, bad site key). */
    static Optional<Due> parse(byte[] header) {
        if (header == null) {
            return Optional.empty();
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(header);
            int kind = b.get();
            long at = b.getLong();
            byte[] site = new byte[b.remaining()];
            b.get(site);
            if (kind < 0 || kind >= DeadlineKind.values().length) {
                return Optional.empty();
            }
            return Optional.of(new Due(at, DeadlineKind.values()[kind], SiteKey.fromBytes(site)));
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
