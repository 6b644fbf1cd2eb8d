package dev.baton.schemas.registry;

import org.apache.kafka.common.errors.RetriableException;

/** The registry could not be reached or failed on its side. Retry later; never dead-letter on it. */
public class SchemaRegistryUnavailableException extends RetriableException {
    public SchemaRegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
