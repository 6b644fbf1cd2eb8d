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
        return client.dispatch(ActivityRequest.builder().site("bench", "w" + id, "1").queue("bench").activityType("noop")
                .input(payload, "application/octet-stream").build()).thenApply(o -> null);
    }

    @Override
    public void close() {
        client.close();
    }
}
