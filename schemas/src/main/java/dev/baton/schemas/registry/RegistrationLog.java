package dev.baton.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * The fold of an append-only log of (subject, schema) registrations. A schema's id is the position
 * of its first registration in the log, so every reader of the same log agrees on every id without
 * coordination; a repeated registration (a race between two writers) changes nothing.
 *
 * <p>Not thread-safe; its owner serializes access.
 */
final class RegistrationLog {

    private final Map<String, Integer> idBySchemaText = new HashMap<>();
    private final Map<Integer, Schema> schemaById = new HashMap<>();
    private final Map<String, List<Integer>> idsBySubject = new HashMap<>();

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
        String canonical = schema.toString();
        Integer id = idBySchemaText.get(canonical);
        if (id == null) {
            id = (int) position;
            idBySchemaText.put(canonical, id);
            schemaById.put(id, schema);
        }
        List<Integer> versions = idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(id)) {
            versions.add(id);
        }
    }

    Optional<Integer> idUnder(String subject, Schema schema) {
        Integer id = idBySchemaText.get(schema.toString());
        return id != null && idsBySubject.getOrDefault(subject, List.of()).contains(id) ? Optional.of(id) : Optional.empty();
    }

    Optional<Schema> schema(int id) {
        return Optional.ofNullable(schemaById.get(id));
    }

    Optional<RegisteredSchema> latest(String subject) {
        List<Integer> versions = idsBySubject.get(subject);
        if (versions == null || versions.isEmpty()) {
            return Optional.empty();
        }
        int id = versions.get(versions.size() - 1);
        return Optional.of(new RegisteredSchema(subject, id, versions.size(), schemaById.get(id)));
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
