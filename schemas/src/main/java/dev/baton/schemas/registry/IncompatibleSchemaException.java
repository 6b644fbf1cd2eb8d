package dev.baton.schemas.registry;

/** The schema cannot read data written with the subject's latest schema; evolve it with defaults. */
public class IncompatibleSchemaException extends SchemaRegistryException {
    public IncompatibleSchemaException(String message) {
        super(message);
    }
}
