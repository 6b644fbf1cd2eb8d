package dev.baton.schemas.registry;

/** The registry refused the schema text or version as invalid. Fix the input. */
public class InvalidSchemaException extends SchemaRegistryException {
    public InvalidSchemaException(String message) {
        super(message);
    }
}
