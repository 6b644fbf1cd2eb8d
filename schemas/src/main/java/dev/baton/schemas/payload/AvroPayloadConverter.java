package dev.baton.schemas.payload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.schemas.AvroTrust;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro specific records (classes generated from {@code .avsc}) in Avro's single-object encoding,
 * {@code application/vnd.apache.avro+binary}: the marker {@code C3 01}, the 8-byte CRC-64-AVRO
 * fingerprint of the writer's schema, the binary body. Any Avro library reads it without a registry;
 * a reader built with another version of the schema refuses it by name (the fingerprint differs)
 * instead of misreading it.
 *
 * <p>Decoding a class trusts that class (and the records it nests) for Avro's class validator
 * ({@link AvroTrust}), as Baton's own event classes are trusted: the caller names the type it expects.
 */
public final class AvroPayloadConverter implements PayloadConverter {

    public static final String CONTENT_TYPE = "application/vnd.apache.avro+binary";

    private final Map<Class<?>, Codec<?>> codecs = new ConcurrentHashMap<>();

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public boolean canEncode(Class<?> type) {
        return SpecificRecord.class.isAssignableFrom(type);
    }

    @Override
    public byte[] encode(Object value) {
        if (!(value instanceof SpecificRecord record)) {
            throw new PayloadConversionException(CONTENT_TYPE + " writes Avro specific records only, was "
                    + (value == null ? "null" : value.getClass().getName()));
        }
        try {
            return encodeWith(codec(record.getClass()), record);
        } catch (IOException | AvroRuntimeException e) {
            throw new PayloadConversionException("cannot write " + record.getClass().getName() + " as Avro: " + e.getMessage(), e);
        }
    }

    @Override
    public <T> T decode(byte[] data, Class<T> type) {
        if (!canEncode(type)) {
            throw new PayloadConversionException(CONTENT_TYPE + " bytes can be read as an Avro specific record only, not as " + type.getName());
        }
        try {
            return type.cast(codec(type).decoder().decode(data));
        } catch (IOException | AvroRuntimeException e) {
            throw new PayloadConversionException("cannot read " + data.length + " bytes of Avro as " + type.getName()
                    + " (single-object encoding, schema fingerprint must match the class's): " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked") // the codec was made for the value's own class
    private static <T> byte[] encodeWith(Codec<T> codec, Object value) throws IOException {
        ByteBuffer out = codec.encoder().encode((T) value);
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        return bytes;
    }

    private Codec<?> codec(Class<?> type) {
        return codecs.computeIfAbsent(type, AvroPayloadConverter::newCodec);
    }

    private static <T> Codec<T> newCodec(Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        AvroTrust.trustBatonEvents(namedClasses(schema, type.getClassLoader()).toArray(Class<?>[]::new));
        return new Codec<>(new BinaryMessageEncoder<>(model, schema), new BinaryMessageDecoder<>(model, schema));
    }

    /** The generated classes of every record, enum and fixed type reachable from {@code schema}. */
    private static List<Class<?>> namedClasses(Schema schema, ClassLoader loader) {
        List<Class<?>> out = new ArrayList<>();
        collect(schema, loader, new HashSet<>(), out);
        return out;
    }

    private static void collect(Schema schema, ClassLoader loader, Set<String> seen, List<Class<?>> out) {
        switch (schema.getType()) {
            case RECORD, ENUM, FIXED -> {
                if (!seen.add(schema.getFullName())) {
                    return;
                }
                try {
                    out.add(Class.forName(schema.getFullName(), false, loader));
                } catch (ClassNotFoundException e) {
                    return; // no generated class: Avro reads it generically, nothing to trust
                }
                if (schema.getType() == Schema.Type.RECORD) {
                    schema.getFields().forEach(f -> collect(f.schema(), loader, seen, out));
                }
            }
            case ARRAY -> collect(schema.getElementType(), loader, seen, out);
            case MAP -> collect(schema.getValueType(), loader, seen, out);
            case UNION -> schema.getTypes().forEach(t -> collect(t, loader, seen, out));
            default -> {
            }
        }
    }

    private record Codec<T>(BinaryMessageEncoder<T> encoder, BinaryMessageDecoder<T> decoder) {
    }
}
