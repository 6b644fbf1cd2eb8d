package dev.baton.schemas.registry;

import java.util.Optional;
import java.util.stream.Collectors;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

/** Baton's one compatibility rule: BACKWARD — a new schema must read everything the previous one wrote. */
public final class SchemaEvolution {

    private SchemaEvolution() {
    }

    /**
     * Checks that {@code newer} can read data written with {@code older}.
     *
     * @return empty when compatible, otherwise a description of every incompatibility
     */
    public static Optional<String> backwardIncompatibilities(Schema newer, Schema older) {
        SchemaPairCompatibility result = SchemaCompatibility.checkReaderWriterCompatibility(newer, older);
        if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
            return Optional.empty();
        }
        return Optional.of(result.getResult().getIncompatibilities().stream()
                .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage())
                .collect(Collectors.joining("; ")));
    }
}
