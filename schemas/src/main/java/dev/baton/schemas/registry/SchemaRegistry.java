package dev.baton.schemas.registry;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.Schema;

/**
 * Where Baton's Avro schemas live and get their 4-byte ids.
 *
 * <p>Ids are global per schema: registering the same schema under any subject returns the same id.
 * Baton's own registries ({@code kafka://}, {@code mem://}) identify a schema by Avro's parsing
 * canonical form, so the same schema written with other whitespace, key order or Java-only
 * properties gets the same id. Registration enforces BACKWARD compatibility with the subject's latest schema and throws
 * {@link IncompatibleSchemaException} otherwise. Implementations are thread-safe.
 *
 * <p>Pick one with {@link #forUrl(String, Map)}: {@code http(s)://} for a Confluent-compatible
 * registry, {@code kafka://} for the schema topic on the cluster, {@code mem://} for unit tests.
 */
public interface SchemaRegistry extends AutoCloseable {

    /** Registers {@code schema} under {@code subject} (idempotent) and returns its id. */
    int register(String subject, Schema schema);

    /** The schema with this id; throws {@link SchemaNotFoundException} if there is none. */
    Schema schemaById(int id);

    /** The newest schema registered under {@code subject}, if any. */
    Optional<RegisteredSchema> latest(String subject);

    /** Whether {@code schema} can read everything written with the subject's latest schema. */
    boolean isCompatible(String subject, Schema schema);

    /** Every subject with at least one version. */
    List<String> subjects();

    /** The subject's versions, version 1 first; empty for an unknown subject. */
    List<RegisteredSchema> versions(String subject);

    /** {@code schema} as registered under {@code subject}, found by parsing canonical form, if it is. */
    default Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        String canonical = RegistrationLog.canonicalForm(schema);
        return versions(subject).stream().filter(v -> RegistrationLog.canonicalForm(v.schema()).equals(canonical)).findFirst();
    }

    @Override
    void close();

    /**
     * A caching registry for the URL's scheme.
     *
     * @param url {@code http(s)://host[:port][/path]}, {@code kafka://[bootstrap]} or {@code mem://name}
     * @param clientConfig Kafka client settings (bootstrap, security) for {@code kafka://}; HTTP
     *     settings ({@code basic.auth.user.info}) for {@code http(s)://}
     */
    static SchemaRegistry forUrl(String url, Map<String, ?> clientConfig) {
        return SchemaRegistries.forUrl(url, clientConfig);
    }
}
