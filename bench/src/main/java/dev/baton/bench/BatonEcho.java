package dev.baton.bench;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.LocalCluster;

/** Baton end to end: DispatchClient → streams app → worker (no-op) → outcome. */
final class BatonEcho implements Echo {
    private final DispatchClient client;
    private final byte[] payload;

    BatonEcho(LocalCluster cluster, int payloadBytes) {
        this.client = cluster.client("bench-client", o -> { }, Map.of("max.pending", 1_000_000));
        this.payload = new byte[payloadBytes];
    }

    @Override
    public CompletableFuture<Void> send(long id) {
        // The outcome is not read, only waited for: the future as it is, not a stage that maps it to null. A stage is a
        // hand-off to the client's callback pool (CallbackFuture), and the bench's own stage on it is the one a user pays.
        @SuppressWarnings("unchecked")
        CompletableFuture<Void> done = (CompletableFuture<Void>) (CompletableFuture<?>) client.dispatch(ActivityRequest.builder()
                .site("bench", "w" + id, "1").queue("bench").activityType("noop").input(payload, "application/octet-stream").build());
        return done;
    }

    @Override
    public void close() {
        client.close();
    }
}
