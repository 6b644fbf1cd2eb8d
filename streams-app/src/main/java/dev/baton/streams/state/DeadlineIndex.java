package dev.baton.streams.state;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.baton.schemas.SiteKey;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The {@code deadlines} store: key = deadline millis (8 bytes, big-endian) + kind (1 byte) + site
 * key bytes. RocksDB orders keys bytewise, so big-endian non-negative millis sort by time and a scan
 * from the start stops at the first future deadline: expiry costs O(expired), not O(sites).
 *
 * <p>The index is derived data: every site row records its armed deadlines, so the store has no
 * changelog and is {@link #rebuild rebuilt} from {@code sites} when a task starts.
 */
public final class DeadlineIndex {

    /** A deadline that has passed. */
    public record Due(long atMillis, DeadlineKind kind, SiteKey site) {
    }

    private static final byte[] EMPTY = new byte[0];
    private final KeyValueStore<Bytes, byte[]> store;

    public DeadlineIndex(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    public void arm(SiteKey site, DeadlineKind kind, long atMillis) {
        store.put(key(atMillis, kind, site), EMPTY);
    }

    public void disarm(SiteKey site, DeadlineKind kind, long atMillis) {
        store.delete(key(atMillis, kind, site));
    }

    /**
     * Re-arms every deadline the site rows record. Entries a local store kept from before need no
     * clearing: a due entry is checked against its row before it acts, and removed either way.
     */
    public void rebuild(SiteStore sites) {
        sites.forEach((site, state) -> state.getDeadlines().forEach((kind, at) -> arm(site, DeadlineKind.valueOf(kind), at)));
    }

    /** Up to {@code limit} deadlines at or before {@code nowMillis}, earliest first. Does not remove them. */
    public List<Due> due(long nowMillis, int limit) {
        List<Due> due = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext() && due.size() < limit) {
                KeyValue<Bytes, byte[]> entry = it.next();
                byte[] k = entry.key.get();
                long at = ByteBuffer.wrap(k, 0, 8).getLong();
                if (at > nowMillis) {
                    break;
                }
                due.add(new Due(at, DeadlineKind.ofCode(k[8]), SiteKey.fromBytes(Arrays.copyOfRange(k, 9, k.length))));
            }
        }
        return due;
    }

    static Bytes key(long atMillis, DeadlineKind kind, SiteKey site) {
        byte[] siteBytes = site.toBytes();
        ByteBuffer b = ByteBuffer.allocate(9 + siteBytes.length);
        b.putLong(Math.max(0, atMillis)).put(kind.code()).put(siteBytes);
        return Bytes.wrap(b.array());
    }
}
