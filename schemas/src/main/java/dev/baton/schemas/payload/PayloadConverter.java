package dev.baton.schemas.payload;

/**
 * Converts values of some Java types to the bytes of one content type and back: the SPI behind typed
 * activities. Implementations must be thread-safe and stateless per call; they are shared by every
 * activity thread of a worker and every caller of a dispatch client.
 *
 * <pre>{@code
 * PayloadConverters converters = PayloadConverters.defaults().with(new MyProtobufConverter());
 * }</pre>
 */
public interface PayloadConverter {

    /** The media type this converter writes and reads, e.g. {@code application/json}. */
    String contentType();

    /** Whether this converter writes values of {@code type} (used to choose a converter for an output or input value). */
    boolean canEncode(Class<?> type);

    /**
     * The bytes of {@code value}.
     *
     * @throws PayloadConversionException if the value cannot be written
     */
    byte[] encode(Object value);

    /**
     * A value of {@code type} read from {@code data}, which has this converter's content type.
     *
     * @throws PayloadConversionException if the bytes cannot be read as {@code type}
     */
    <T> T decode(byte[] data, Class<T> type);
}
