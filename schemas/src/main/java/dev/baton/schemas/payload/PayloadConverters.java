package dev.baton.schemas.payload;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An ordered, immutable set of {@link PayloadConverter}s. Encoding a value uses the first converter
 * that {@linkplain PayloadConverter#canEncode can encode} its class and labels the bytes with that
 * converter's content type; decoding chooses the converter by the bytes' content type (parameters
 * such as {@code ; charset=utf-8} and case ignored), so whatever the other side wrote is read with the
 * matching converter. Asking for {@code byte[]} always returns the bytes as they are.
 *
 * <p>{@link #defaults()}: raw bytes, Avro specific records, then Jackson JSON for everything else.
 * Thread-safe.
 */
public final class PayloadConverters {

    private static final PayloadConverters DEFAULTS = new PayloadConverters(List.of(
            new RawBytesConverter(), new AvroPayloadConverter(), new JsonPayloadConverter()));

    private final List<PayloadConverter> converters;

    private PayloadConverters(List<PayloadConverter> converters) {
        if (converters.isEmpty()) {
            throw new IllegalArgumentException("at least one converter is needed, was none");
        }
        this.converters = List.copyOf(converters);
    }

    public static PayloadConverters defaults() {
        return DEFAULTS;
    }

    /** Exactly these converters, in this order. */
    public static PayloadConverters of(PayloadConverter... converters) {
        return new PayloadConverters(List.of(converters));
    }

    /** These converters with {@code first} ahead of them: it wins for the types it can encode and replaces one of its content type. */
    public PayloadConverters with(PayloadConverter first) {
        List<PayloadConverter> out = new ArrayList<>();
        out.add(first);
        String type = EncodedPayload.mediaType(first.contentType());
        converters.stream().filter(c -> !EncodedPayload.mediaType(c.contentType()).equals(type)).forEach(out::add);
        return new PayloadConverters(out);
    }

    public List<PayloadConverter> converters() {
        return converters;
    }

    /**
     * {@code value} as bytes with their content type; {@code null} is written by the last converter
     * (JSON {@code null} with the defaults).
     *
     * @throws PayloadConversionException if no converter can encode the value's class, or the chosen one fails
     */
    public EncodedPayload encode(Object value) {
        PayloadConverter converter = value == null ? converters.get(converters.size() - 1) : forValue(value.getClass());
        return new EncodedPayload(converter.encode(value), converter.contentType());
    }

    /**
     * The value of {@code type} that {@code payload} holds.
     *
     * @throws PayloadConversionException if no converter reads the payload's content type, or it cannot read the bytes as {@code type}
     */
    public <T> T decode(EncodedPayload payload, Class<T> type) {
        if (type == byte[].class) {
            return type.cast(payload.data());
        }
        String media = payload.mediaType();
        for (PayloadConverter c : converters) {
            if (EncodedPayload.mediaType(c.contentType()).equals(media)) {
                return c.decode(payload.data(), type);
            }
        }
        throw new PayloadConversionException("no converter reads content type '" + payload.contentType() + "' (as " + type.getName()
                + "); known: " + contentTypes());
    }

    private PayloadConverter forValue(Class<?> type) {
        for (PayloadConverter c : converters) {
            if (c.canEncode(type)) {
                return c;
            }
        }
        throw new PayloadConversionException("no converter writes " + type.getName() + "; known: " + contentTypes());
    }

    private String contentTypes() {
        return converters.stream().map(PayloadConverter::contentType).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return "PayloadConverters[" + contentTypes() + "]";
    }
}
