package dev.baton.morsel.history;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.baton.morsel.kafka.ScanTimings;
import dev.baton.schemas.registry.RegisteredSchema;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.avro.Schema;

/**
 * A schema registry opened on a thread of its own, so that a scan's consumers, offsets and first
 * fetches need not wait for it: nothing asks for a schema before the first record is decoded. The
 * opening thread also reads what is registered ({@link SchemaRegistry#subjects()}), so the first
 * decode usually finds its schema without a round trip. Every call waits for the opening and
 * throws what the opening threw.
 *
 * <p>Thread-safe as the registry it opens.
 */
final class RegistryOpening implements SchemaRegistry {

    private final CompletableFuture<SchemaRegistry> opening = new CompletableFuture<>();

    RegistryOpening(String url, Map<String, Object> clientConfig, ScanTimings timings) {
        Thread opener = new Thread(() -> {
            long start = System.nanoTime();
            try {
                SchemaRegistry registry = SchemaRegistry.forUrl(url, clientConfig);
                opening.complete(registry);
                registry.subjects(); // reads the schema topic (kafka://) while the scan gets ready
            } catch (RuntimeException | Error e) {
                opening.completeExceptionally(e);
            } finally {
                timings.done("schema registry opened and read (beside)", start);
            }
        }, "baton-registry-opening");
        opener.setDaemon(true);
        opener.start();
    }

    private SchemaRegistry registry() {
        return Futures.join(opening);
    }

    @Override
    public int register(String subject, Schema schema) {
        return registry().register(subject, schema);
    }

    @Override
    public Schema schemaById(int id) {
        return registry().schemaById(id);
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        return registry().latest(subject);
    }

    @Override
    public boolean isCompatible(String subject, Schema schema) {
        return registry().isCompatible(subject, schema);
    }

    @Override
    public List<String> subjects() {
        return registry().subjects();
    }

    @Override
    public List<RegisteredSchema> versions(String subject) {
        return registry().versions(subject);
    }

    @Override
    public Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        return registry().lookup(subject, schema);
    }

    /** Waits for the opening to end; a registry that failed to open has nothing to close. */
    @Override
    public void close() {
        SchemaRegistry registry;
        try {
            registry = opening.join();
        } catch (CompletionException failedToOpen) {
            return;
        }
        registry.close();
    }
}
