package dev.baton.schemas.payload;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Any Java type as JSON through Jackson, {@code application/json}: the default for everything that is
 * neither {@code byte[]} nor an Avro record. Records, beans and collections work out of the box; the
 * reader ignores properties it does not know, so a producer may add fields before its consumers do.
 */
public final class JsonPayloadConverter implements PayloadConverter {

    public static final String CONTENT_TYPE = "application/json";

    private final ObjectMapper mapper;

    public JsonPayloadConverter() {
        this(JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build());
    }

    /** With the caller's mapper (modules such as {@code jackson-datatype-jsr310}, naming strategies); it must not change afterwards. */
    public JsonPayloadConverter(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public boolean canEncode(Class<?> type) {
        return true;
    }

    @Override
    public byte[] encode(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new PayloadConversionException("cannot write " + (value == null ? "null" : value.getClass().getName()) + " as JSON: "
                    + message(e), e);
        }
    }

    @Override
    public <T> T decode(byte[] data, Class<T> type) {
        if (data.length == 0) {
            return null; // no bytes at all: no value (an activity dispatched without input)
        }
        try {
            return mapper.readValue(data, type);
        } catch (IOException e) {
            throw new PayloadConversionException("cannot read " + data.length + " bytes of JSON as " + type.getName() + ": "
                    + message(e), e);
        }
    }

    /** Jackson's message without the source location it appends (the source is a byte array, its location says nothing). */
    private static String message(IOException e) {
        return e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    }
}
