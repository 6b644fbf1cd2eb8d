package dev.baton.schemas.registry;

import org.apache.kafka.common.KafkaException;

/** Base of every schema-registry failure. Subclasses say what the caller should do next. */
public class SchemaRegistryException extends KafkaException {

    public SchemaRegistryException(String message) {
        super(message);
    }

    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
