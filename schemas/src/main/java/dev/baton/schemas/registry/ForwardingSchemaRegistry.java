package dev.baton.schemas.registry;

import java.util.List;
import java.util.Optional;

import org.apache.avro.Schema;

/**
 * A registry that hands every call to another: a decorator overrides only what it changes (counting
 * registrations, failing while a flag is set, timing lookups) and inherits the rest.
 */
public abstract class ForwardingSchemaRegistry implements SchemaRegistry {

    private final SchemaRegistry delegate;

    protected ForwardingSchemaRegistry(SchemaRegistry delegate) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate must be a registry, was null");
        }
        this.delegate = delegate;
    }

    protected SchemaRegistry delegate() {
        return delegate;
    }

    @Override
    public int register(String subject, Schema schema) {
        return delegate.register(subject, schema);
    }

    @Override
    public Schema schemaById(int id) {
        return delegate.schemaById(id);
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
