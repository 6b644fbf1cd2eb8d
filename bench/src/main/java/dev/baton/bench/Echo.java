package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Something that echoes a payload through Kafka and calls back with the key when it comes back. */
interface Echo extends AutoCloseable {
    CompletableFuture<Void> send(long id);

    /** Sends ids {@code firstId ..< firstId + count} at once; completes when every one has come back. */
    default CompletableFuture<Void> sendAll(long firstId, long count) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            all.add(send(firstId + i));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }
}
