package dev.baton.schemas.registry;

/** No schema has the id, or the subject or version does not exist. Retrying will not help. */
public class SchemaNotFoundException extends SchemaRegistryException {
    public SchemaNotFoundException(String message) {
        super(message);
    }
}
