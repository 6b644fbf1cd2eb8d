package dev.baton.schemas.registry;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;

/** Caches ids by schema and schemas by id in front of any registry; both never change once assigned. */
final class CachingSchemaRegistry implements SchemaRegistry {

    private record SubjectSchema(String subject, Schema schema) {
    }

    private final SchemaRegistry delegate;
    private final Map<SubjectSchema, Integer> idBySubjectSchema = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();

    CachingSchemaRegistry(SchemaRegistry delegate) {
        this.delegate = delegate;
    }

    @Override
    public int register(String subject, Schema schema) {
        return idBySubjectSchema.computeIfAbsent(new SubjectSchema(subject, schema), k -> {
            int id = delegate.register(subject, schema);
            schemaById.putIfAbsent(id, schema);
            return id;
        });
    }

    @Override
    public Schema schemaById(int id) {
        Schema cached = schemaById.get(id);
        return cached != null ? cached : schemaById.computeIfAbsent(id, delegate::schemaById);
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        return delegate.latest(subject);
    }

    @Override
    public boolean isCompatible(String subject, Schema schema) {
        return delegate.isCompatible(subject, schema);
    }

    @Override
    public List<String> subjects() {
        return delegate.subjects();
    }

    @Override
    public List<RegisteredSchema> versions(String subject) {
        return delegate.versions(subject);
    }

    @Override
    public Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        return delegate.lookup(subject, schema);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
