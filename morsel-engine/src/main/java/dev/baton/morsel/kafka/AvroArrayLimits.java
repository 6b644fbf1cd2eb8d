package dev.baton.morsel.kafka;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.apache.avro.Schema;

/**
 * The check Avro 1.12.2 makes at an array block's start, before reading any item, as the plan mirrors it (see
 * docs/decisions.md, "Array blocks checked as Avro checks them"): an item type's least encoded size. Maps get none: the
 * datum reader {@code EventSerde} runs checks none when reading or skipping one.
 *
 * <p>Stateless.
 */
final class AvroArrayLimits {

    private AvroArrayLimits() {
    }

    /**
     * The fewest bytes one value of {@code schema} takes, as {@code GenericDatumReader.minBytesPerElement} counts them: a
     * null none, a float 4, a double 8, a fixed its size, a record its fields' sum (a record met again inside itself adds
     * nothing), anything else one byte (a varint, a length, a union's index, an empty array's end).
     */
    static int minItemBytes(Schema schema) {
        return minItemBytes(schema, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static int minItemBytes(Schema schema, Set<Schema> entered) {
        return switch (schema.getType()) {
            case NULL -> 0;
            case FLOAT -> 4;
            case DOUBLE -> 8;
            case FIXED -> schema.getFixedSize();
            case RECORD -> {
                if (!entered.add(schema)) {
                    yield 0;
                }
                long sum = 0;
                for (Schema.Field f : schema.getFields()) {
                    sum = Math.min(Integer.MAX_VALUE, sum + minItemBytes(f.schema(), entered));
                }
                entered.remove(schema);
                yield (int) sum;
            }
            default -> 1;
        };
    }
}
