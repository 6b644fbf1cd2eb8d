package dev.baton.schemas.registry;

import java.util.List;
import java.util.Optional;

import org.apache.avro.Schema;

/** A registry in this JVM's memory ({@code mem://}), for unit tests. Same id rule as the schema topic. */
final class InMemorySchemaRegistry implements SchemaRegistry {

    private final RegistrationLog log = new RegistrationLog();
    private long nextPosition;

    @Override
    public synchronized int register(String subject, Schema schema) {
        Optional<Integer> existing = log.idUnder(subject, schema);
        if (existing.isPresent()) {
            return existing.get();
        }
        log.requireCompatible(subject, schema);
        log.apply(nextPosition++, subject, schema.toString());
        return log.idUnder(subject, schema).orElseThrow();
    }

    @Override
    public synchronized Schema schemaById(int id) {
        return log.schema(id).orElseThrow(() -> new SchemaNotFoundException("no schema has id " + id));
    }

    @Override
    public synchronized Optional<RegisteredSchema> latest(String subject) {
        return log.latest(subject);
    }

    @Override
    public synchronized boolean isCompatible(String subject, Schema schema) {
        return log.isCompatible(subject, schema);
    }

    @Override
    public synchronized List<String> subjects() {
        return log.subjects();
    }

    @Override
    public synchronized List<RegisteredSchema> versions(String subject) {
        return log.versions(subject);
    }

    @Override
    public synchronized Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        return log.lookup(subject, schema);
    }

    @Override
    public void close() {
        // Shared by every mem:// client of the same name; nothing to release.
    }
}
