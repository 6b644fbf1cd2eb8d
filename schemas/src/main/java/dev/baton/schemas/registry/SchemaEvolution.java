package dev.baton.schemas.registry;

import java.util.Optional;
import java.util.stream.Collectors;

import org.apache.avro.AvroRuntimeException;
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
     * @return empty when compatible, otherwise a description of every incompatibility (or of why the two cannot be compared)
     */
    public static Optional<String> backwardIncompatibilities(Schema newer, Schema older) {
        SchemaPairCompatibility result;
        try {
            result = SchemaCompatibility.checkReaderWriterCompatibility(newer, older);
        } catch (AvroRuntimeException e) {
            // Avro's checker throws where it cannot pair the fields (a reader field whose name and aliases match two
            // writer fields): no reader can read that writer, and a decoder must say so, not throw Avro's exception.
            return Optional.of("the reader's fields cannot be paired with the writer's: " + e.getMessage());
        }
        if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
            return Optional.empty();
        }
        return Optional.of(result.getResult().getIncompatibilities().stream()
                .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage())
                .collect(Collectors.joining("; ")));
    }
}
