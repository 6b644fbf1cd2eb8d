package dev.baton.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The fold of an append-only log of (subject, schema) registrations. A schema is identified by
 * Avro's parsing canonical form ({@link SchemaNormalization#toParsingForm}), which every Avro
 * library computes alike; its id is the position of the first registration of that form, so every
 * reader of the same log agrees on every id without coordination, whatever language, whitespace,
 * field order of the JSON object or Java-only properties the registering client used.
 *
 * <p>Logs written before canonical identity gave an id to each distinct Java {@code toString()}
 * text. Those ids stay readable: the position of any valid registration resolves to the schema it
 * holds ({@link #schema}), while registration hands out only the canonical id.
 *
 * <p>Not thread-safe; its owner serializes access.
 */
final class RegistrationLog {

    private final Map<String, Integer> idByCanonicalForm = new HashMap<>();
    private final Map<Integer, Schema> schemaById = new HashMap<>();
    /** Positions that an older rule may have handed out as ids: read-only aliases of a canonical id. */
    private final Map<Integer, Schema> schemaByLegacyId = new HashMap<>();
    private final Map<String, List<Integer>> idsBySubject = new TreeMap<>();

    /** The identity of a schema in every Baton registry. */
    static String canonicalForm(Schema schema) {
        return SchemaNormalization.toParsingForm(schema);
    }

    /**
     * Applies the registration found at {@code position}. Entries that are not a valid schema are
     * skipped: every role may write the log, and one bad entry (a default of the wrong type, a
     * duplicate field: Avro throws more than SchemaParseException for those) must not stop every
     * process that replays it.
     */
    void apply(long position, String subject, String schemaText) {
        Schema schema;
        try {
            schema = new Schema.Parser().parse(schemaText);
        } catch (AvroRuntimeException | NullPointerException | IllegalArgumentException e) {
            return;
        }
        if (position > Integer.MAX_VALUE) {
            throw new SchemaRegistryException("schema log position " + position + " does not fit a 4-byte schema id");
        }
        Integer id = idByCanonicalForm.putIfAbsent(canonicalForm(schema), (int) position);
        if (id == null) {
            id = (int) position;
            schemaById.put(id, schema);
        } else {
            schemaByLegacyId.put((int) position, schema);
        }
        List<Integer> versions = idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(id)) {
            versions.add(id);
        }
    }

    /** The canonical id of {@code schema} if it is registered under {@code subject}. */
    Optional<Integer> idUnder(String subject, Schema schema) {
        return lookup(subject, schema).map(RegisteredSchema::id);
    }

    /** {@code schema} as registered under {@code subject} (with its version), if it is. */
    Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        Integer id = idByCanonicalForm.get(canonicalForm(schema));
        List<Integer> versions = idsBySubject.getOrDefault(subject, List.of());
        int index = id == null ? -1 : versions.indexOf(id);
        return index < 0 ? Optional.empty() : Optional.of(new RegisteredSchema(subject, id, index + 1, schemaById.get(id)));
    }

    /** The schema with this id: a canonical id, or the position of any valid registration (a legacy id). */
    Optional<Schema> schema(int id) {
        Schema schema = schemaById.get(id);
        return Optional.ofNullable(schema != null ? schema : schemaByLegacyId.get(id));
    }

    Optional<RegisteredSchema> latest(String subject) {
        List<RegisteredSchema> versions = versions(subject);
        return versions.isEmpty() ? Optional.empty() : Optional.of(versions.get(versions.size() - 1));
    }

    /** Every subject with at least one version, sorted. */
    List<String> subjects() {
        return List.copyOf(idsBySubject.keySet());
    }

    /** The subject's versions, oldest first (version 1 first); empty for an unknown subject. */
    List<RegisteredSchema> versions(String subject) {
        List<Integer> ids = idsBySubject.getOrDefault(subject, List.of());
        List<RegisteredSchema> versions = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            versions.add(new RegisteredSchema(subject, ids.get(i), i + 1, schemaById.get(ids.get(i))));
        }
        return versions;
    }

    boolean isCompatible(String subject, Schema schema) {
        try {
            requireCompatible(subject, schema);
            return true;
        } catch (IncompatibleSchemaException e) {
            return false;
        }
    }

    /** Throws {@link IncompatibleSchemaException} if {@code schema} cannot read the subject's latest. */
    void requireCompatible(String subject, Schema schema) {
        latest(subject).ifPresent(latest -> SchemaEvolution.backwardIncompatibilities(schema, latest.schema())
                .ifPresent(why -> {
                    throw new IncompatibleSchemaException("schema for subject '" + subject
                            + "' is not BACKWARD compatible with version " + latest.version() + ": " + why);
                }));
    }
}
