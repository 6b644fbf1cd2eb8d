package dev.baton.schemas.payload;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

import dev.baton.events.Payload;

/**
 * An activity's input or output as it travels: bytes and the content type that says how to read them.
 * Converts to and from the Avro {@code Payload} record at the edge.
 *
 * @param data the bytes (never null; empty for none)
 * @param contentType a media type such as {@code application/json} (never null)
 */
public record EncodedPayload(byte[] data, String contentType) {

    public static final String OCTET_STREAM = "application/octet-stream";

    public EncodedPayload {
        data = data == null ? new byte[0] : data;
        contentType = contentType == null || contentType.isBlank() ? OCTET_STREAM : contentType;
    }

    public static EncodedPayload octetStream(byte[] data) {
        return new EncodedPayload(data, OCTET_STREAM);
    }

    /** The bytes of an Avro {@code Payload}; a null one reads as no bytes, {@code application/octet-stream}. */
    public static EncodedPayload of(Payload payload) {
        if (payload == null) {
            return octetStream(new byte[0]);
        }
        ByteBuffer data = payload.getData().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return new EncodedPayload(bytes, payload.getContentType());
    }

    public Payload toPayload() {
        return new Payload(ByteBuffer.wrap(data), contentType);
    }

    /** The media type without parameters, lower case: {@code application/json; charset=utf-8} → {@code application/json}. */
    public String mediaType() {
        return mediaType(contentType);
    }

    static String mediaType(String contentType) {
        if (contentType == null) {
            return OCTET_STREAM;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(java.util.Locale.ROOT);
        return type.isEmpty() ? OCTET_STREAM : type;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EncodedPayload other && Arrays.equals(data, other.data) && contentType.equals(other.contentType);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(data) + Objects.hashCode(contentType);
    }

    @Override
    public String toString() {
        return "EncodedPayload[" + data.length + " bytes, " + contentType + "]";
    }
}
