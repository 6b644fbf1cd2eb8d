package dev.baton.streams.state;

import java.util.List;
import java.util.Optional;

import dev.baton.events.store.Fence;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.topology.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The {@code fences} store: site → the current generation's outstanding tokens.
 *
 * <p>Acceptance and revocation need no locks and no restore-after-failure path: one Streams task
 * processes every event of a site in order, and the store write commits in the same Kafka
 * transaction as the records it causes. A crash between "accepted" and "published" cannot happen;
 * the whole step is replayed or none of it is visible.
 */
public final class FenceStore {

    private final KeyValueStore<Bytes, byte[]> store;
    private final EventSerde<Fence> serde;

    public FenceStore(KeyValueStore<Bytes, byte[]> store, EventSerde<Fence> serde) {
        this.store = store;
        this.serde = serde;
    }

    /** Issues a fresh token for a new generation, revoking every earlier token of the site. */
    public CompletionToken issue(SiteKey site, int attempt, int generation) {
        CompletionToken token = CompletionToken.random();
        store.put(key(site), serde.encode(TopologyNames.FENCES_SUBJECT_TOPIC, new Fence(attempt, generation, List.of(token.value()))));
        return token;
    }

    /** The fence if {@code token} is one of the current generation's tokens (constant-time compare). */
    public Optional<Fence> accepting(SiteKey site, String token) {
        byte[] bytes = store.get(key(site));
        if (bytes == null || token == null) {
            return Optional.empty();
        }
        Fence fence = serde.decode(TopologyNames.FENCES_SUBJECT_TOPIC, bytes);
        boolean match = false;
        for (String t : fence.getTokens()) {
            match |= new CompletionToken(t).matches(token);
        }
        return match ? Optional.of(fence) : Optional.empty();
    }

    /** Revokes every outstanding token of the site. */
    public void revoke(SiteKey site) {
        store.delete(key(site));
    }

    private static Bytes key(SiteKey site) {
        return Bytes.wrap(site.toBytes());
    }
}
