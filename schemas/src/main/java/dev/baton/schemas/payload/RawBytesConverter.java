package dev.baton.schemas.payload;

/** {@code byte[]} as itself, {@code application/octet-stream}: the bytes API's converter. */
public final class RawBytesConverter implements PayloadConverter {

    @Override
    public String contentType() {
        return EncodedPayload.OCTET_STREAM;
    }

    @Override
    public boolean canEncode(Class<?> type) {
        return type == byte[].class;
    }

    @Override
    public byte[] encode(Object value) {
        if (value == null) {
            return new byte[0];
        }
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        throw new PayloadConversionException(contentType() + " writes byte[] only, was " + value.getClass().getName());
    }

    @Override
    public <T> T decode(byte[] data, Class<T> type) {
        if (type != byte[].class) {
            throw new PayloadConversionException(contentType() + " bytes can be read as byte[] only, not as " + type.getName()
                    + "; send the input with the content type of a converter for that type (application/json for a plain Java type)");
        }
        return type.cast(data);
    }
}
