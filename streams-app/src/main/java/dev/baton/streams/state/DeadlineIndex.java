package dev.baton.streams.state;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

import dev.baton.schemas.SiteKey;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * When each armed deadline passes, in two tiers. The site row is the truth (every row records its
 * armed deadlines); the index only says when to look at it, and is rebuilt from the rows when a task
 * starts.
 *
 * <ul>
 *   <li><b>Live sites' deadlines</b> (heartbeat, timeouts, retry backoff) are held in memory: at most
 *       one per kind per live site, and they are armed, moved and disarmed on nearly every event, so
 *       a store would pay a write and a delete for each. A profile of {@code bench dispatch} had
 *       ~17% of the stream thread in the RocksDB writes, deletes and re-reads of heartbeat deadlines.</li>
 *   <li><b>Expiry of resolved sites</b> (the dedupe window) is in the {@code deadlines} RocksDB store,
 *       which has no changelog: one entry per site resolved within the window, too many for memory.
 *       Key = deadline millis (8 bytes, big-endian) + kind (1 byte) + site key bytes, so keys sort by
 *       time and a scan stops at the first future deadline: expiry costs O(expired), not O(sites).
 *       Disarming leaves the entry in place (it is stale, and dropped when it comes due): a delete
 *       would be a tombstone ahead of now, which RocksDB makes every later scan step over. The scan
 *       starts at a floor below which no entry is left, so fired entries' tombstones are behind it.</li>
 * </ul>
 *
 * <p>Like {@link SiteStore}, changes are staged: {@link #arm}, {@link #disarm} and {@link #remove}
 * take effect at {@link #commitStep()}, and {@link #abortStep()} forgets them, so the index moves
 * with the rows it mirrors. {@link #due} reads committed entries only.
 */
public final class DeadlineIndex {

    /** A deadline that has passed. */
    public record Due(long atMillis, DeadlineKind kind, SiteKey site) {
    }

    /**
     * By time, then kind, then site key. Written out rather than chained from {@code Comparator.comparing}: every
     * lease arms a heartbeat and every resolution disarms it, each a tree walk whose compares mostly tie on
     * the millisecond and the kind, and the chain's three nested lambdas cost about as much again as the
     * compares (docs/decisions.md, "Exactly-once CPU per activity", issue 29).
     */
    private static final Comparator<Due> EARLIEST_FIRST = (a, b) -> {
        int c = Long.compare(a.atMillis(), b.atMillis());
        if (c != 0) {
            return c;
        }
        c = a.kind().compareTo(b.kind());
        return c != 0 ? c : a.site().asKey().compareTo(b.site().asKey());
    };
    private static final byte[] EMPTY = new byte[0];

    private enum Change { ARM, DISARM, REMOVE }

    private record Staged(Change change, Due due) {
    }

    private final NavigableSet<Due> live = new TreeSet<>(EARLIEST_FIRST);
    private final List<Staged> staged = new ArrayList<>();
    private final KeyValueStore<Bytes, byte[]> expiries;
    /** No expiry entry is below this time; 0 after a start, so the first scan sees everything. */
    private long floorMillis;

    public DeadlineIndex(KeyValueStore<Bytes, byte[]> expiries) {
        this.expiries = expiries;
    }

    public void arm(SiteKey site, DeadlineKind kind, long atMillis) {
        staged.add(new Staged(Change.ARM, new Due(atMillis, kind, site)));
    }

    /** The row no longer holds this deadline. */
    public void disarm(SiteKey site, DeadlineKind kind, long atMillis) {
        staged.add(new Staged(Change.DISARM, new Due(atMillis, kind, site)));
    }

    /** Removes an entry {@link #due} returned: it has fired, or was stale. */
    public void remove(Due due) {
        staged.add(new Staged(Change.REMOVE, due));
    }

    /** Applies this step's changes. */
    public void commitStep() {
        for (Staged s : staged) {
            Due d = s.due();
            switch (s.change()) {
                case ARM -> applyArm(d.site(), d.kind(), d.atMillis());
                case DISARM -> applyDisarm(d.site(), d.kind(), d.atMillis());
                default -> applyRemove(d);
            }
        }
        staged.clear();
    }

    /** Forgets this step's changes. */
    public void abortStep() {
        staged.clear();
    }

    private void applyArm(SiteKey site, DeadlineKind kind, long atMillis) {
        long at = Math.max(0, atMillis);
        if (kind == DeadlineKind.EXPIRE) {
            floorMillis = Math.min(floorMillis, at);
            expiries.put(key(at, kind, site), EMPTY);
        } else {
            live.add(new Due(at, kind, site));
        }
    }

    private void applyDisarm(SiteKey site, DeadlineKind kind, long atMillis) {
        if (kind != DeadlineKind.EXPIRE) {
            live.remove(new Due(Math.max(0, atMillis), kind, site));
        }
    }

    private void applyRemove(Due due) {
        if (due.kind() == DeadlineKind.EXPIRE) {
            expiries.delete(key(due.atMillis(), due.kind(), due.site()));
        } else {
            live.remove(due);
        }
    }

    /** Re-arms every deadline the site rows record. Stale expiry entries the local store kept are dropped when due. */
    public void rebuild(SiteStore sites) {
        sites.forEach((site, state) -> state.getDeadlines().forEach((kind, at) -> applyArm(site, DeadlineKind.valueOf(kind), at)));
    }

    /**
     * Up to {@code limit} entries that have passed, earliest first within each tier, stale expiries
     * included: those at or before {@code nowMillis}, except that a kind that
     * {@linkplain DeadlineKind#waitsForReports() waits for reports} must also be at or before
     * {@code reportsReadMillis}. Does not remove them: the caller must {@link #remove} every entry
     * returned (the expiry scan will not return it again).
     */
    public List<Due> due(long nowMillis, long reportsReadMillis, int limit) {
        List<Due> due = new ArrayList<>();
        for (Due d : live) {
            if (d.atMillis() > nowMillis || due.size() == limit) {
                break;
            }
            if (!d.kind().waitsForReports() || d.atMillis() <= reportsReadMillis) {
                due.add(d);
            }
        }
        int expiriesLimit = limit - due.size();
        if (expiriesLimit > 0) {
            scanExpiries(nowMillis, expiriesLimit, due);
        }
        return due;
    }

    /** Whether a deadline that waits for reports has passed the wall clock but not yet {@code reportsReadMillis}. */
    public boolean awaitsReports(long nowMillis, long reportsReadMillis) {
        for (Due d : live) {
            if (d.atMillis() > nowMillis) {
                return false;
            }
            if (d.kind().waitsForReports() && d.atMillis() > reportsReadMillis) {
                return true;
            }
        }
        return false;
    }

    private void scanExpiries(long nowMillis, int limit, List<Due> into) {
        int found = 0;
        long lastAt = floorMillis;
        try (KeyValueIterator<Bytes, byte[]> it = expiries.range(Bytes.wrap(millis(floorMillis)), null)) {
            while (it.hasNext() && found < limit) {
                byte[] k = it.next().key.get();
                long at = ByteBuffer.wrap(k, 0, 8).getLong();
                if (at > nowMillis) {
                    break;
                }
                into.add(new Due(at, DeadlineKind.ofCode(k[8]), SiteKey.fromBytes(Arrays.copyOfRange(k, 9, k.length))));
                found++;
                lastAt = at;
            }
        }
        // A full batch may have left entries at the last time it returned; otherwise it returned
        // everything up to now.
        floorMillis = Math.max(floorMillis, found == limit ? lastAt : nowMillis + 1);
    }

    static Bytes key(long atMillis, DeadlineKind kind, SiteKey site) {
        byte[] siteBytes = site.toBytes();
        ByteBuffer b = ByteBuffer.allocate(9 + siteBytes.length);
        b.putLong(Math.max(0, atMillis)).put(kind.code()).put(siteBytes);
        return Bytes.wrap(b.array());
    }

    private static byte[] millis(long atMillis) {
        return ByteBuffer.allocate(8).putLong(atMillis).array();
    }
}
