package dev.baton.morsel.kafka;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.apache.avro.Schema;

/**
 * The two checks Avro 1.12.2 makes at an array block's start, before reading any item, as the plan mirrors them (see
 * docs/decisions.md, "Array blocks checked as Avro checks them"): an item type's least encoded size, and the cap on items
 * that take no bytes. Maps get neither: the datum reader {@code EventSerde} runs checks neither when reading or skipping one.
 *
 * <p>Stateless; the cap is read once, when the class loads, as Avro reads its own.
 */
final class AvroArrayLimits {

    /** The property Avro reads its cap on zero-byte items from ({@code SystemLimitException.MAX_COLLECTION_ALLOCATION_PROPERTY}). */
    static final String ZERO_BYTE_ITEMS_PROPERTY = "org.apache.avro.limits.collectionItems.maxAllocation";

    /**
     * The most items that take no bytes one value may hold, over all its arrays: Avro counts them per datum read, in a
     * scope {@code GenericDatumReader.read} opens. Avro's default is an eighth of a quarter of the heap, never more than a
     * Java array holds, and a property that is not a positive long is ignored.
     */
    static final long MAX_ZERO_BYTE_ITEMS = Math.min(zeroByteItemsLimit(), Integer.MAX_VALUE - 8);

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

    private static long zeroByteItemsLimit() {
        long fallback = Math.max(1, Math.max(1, Runtime.getRuntime().maxMemory() / 4) / 8);
        String property = System.getProperty(ZERO_BYTE_ITEMS_PROPERTY);
        if (property == null) {
            return fallback;
        }
        try {
            long limit = Long.parseLong(property);
            return limit > 0 ? limit : fallback;
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
