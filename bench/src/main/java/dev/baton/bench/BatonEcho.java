package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.LocalCluster;

/** Baton end to end: DispatchClient → streams app → worker (no-op) → outcome. */
final class BatonEcho implements Echo {
    /** Activities a burst waits for together; a few milliseconds of a burst at tens of thousands a second. */
    private static final int BURST_CHUNK = 1_000;
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
        CompletableFuture<Void> done = (CompletableFuture<Void>) (CompletableFuture<?>) client.dispatch(request(id));
        return done;
    }

    /**
     * Waits for the burst a chunk at a time: {@code allOf} over the whole burst's futures (the default) kept every
     * future, with its outcome, alive until the last one came back, which the raw echo and the kafka shape (a count
     * per burst) never pay and which the young collections then copied again and again. A chunk's futures are free once
     * its last one is answered. {@code allOf}, not a stage per future: a stage on a dispatch's future runs on the
     * client's callback pool (a hand-off per activity), while {@code allOf}'s relays run on the thread completing it.
     */
    @Override
    public CompletableFuture<Void> sendAll(long firstId, long count) {
        List<CompletableFuture<Void>> chunks = new ArrayList<>();
        for (long from = 0; from < count; from += BURST_CHUNK) {
            CompletableFuture<?>[] chunk = new CompletableFuture<?>[(int) Math.min(BURST_CHUNK, count - from)];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = client.dispatch(request(firstId + from + i));
            }
            chunks.add(CompletableFuture.allOf(chunk));
        }
        return CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new));
    }

    private ActivityRequest request(long id) {
        return ActivityRequest.builder().site("bench", "w" + id, "1").queue("bench").activityType("noop")
                .input(payload, "application/octet-stream").build();
    }

    @Override
    public void close() {
        client.close();
    }
}
