package dev.baton.schemas.registry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;

/** Caches ids by schema and schemas by id in front of any registry; both never change once assigned. */
final class CachingSchemaRegistry extends ForwardingSchemaRegistry {

    private record SubjectSchema(String subject, Schema schema) {
    }

    private final Map<SubjectSchema, Integer> idBySubjectSchema = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();

    CachingSchemaRegistry(SchemaRegistry delegate) {
        super(delegate);
    }

    @Override
    public int register(String subject, Schema schema) {
        return idBySubjectSchema.computeIfAbsent(new SubjectSchema(subject, schema), k -> {
            int id = delegate().register(subject, schema);
            schemaById.putIfAbsent(id, schema);
            return id;
        });
    }

    @Override
    public Schema schemaById(int id) {
        Schema cached = schemaById.get(id);
        return cached != null ? cached : schemaById.computeIfAbsent(id, delegate()::schemaById);
    }
}
