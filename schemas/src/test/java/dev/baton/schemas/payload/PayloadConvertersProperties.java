package dev.baton.schemas.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.baton.events.SiteRef;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Every default converter gives back what it was given, and labels the bytes so the other side picks the same converter. */
class PayloadConvertersProperties {

    record Charge(String customer, long cents, List<String> tags, Map<String, Integer> lines) {
    }

    private final PayloadConverters converters = PayloadConverters.defaults();

    /** Any text a caller could send: control characters, quotes and backslashes, multi-byte UTF-8 (no lone surrogates, which UTF-8 cannot hold). */
    @Provide
    Arbitrary<String> text() {
        return Arbitraries.strings().withCharRange('\u0000', '\ud7ff').withChars('"', '\\').ofMaxLength(30);
    }

    @Property
    void shouldRoundTripAJavaRecordAsJson(@ForAll("text") String customer, @ForAll long cents,
                                          @ForAll @Size(max = 5) List<@From("text") String> tags,
                                          @ForAll @Size(max = 5) Map<@From("text") String, Integer> lines) {
        Charge charge = new Charge(customer, cents, tags, lines);

        EncodedPayload payload = converters.encode(charge);

        assertThat(payload.contentType()).isEqualTo(JsonPayloadConverter.CONTENT_TYPE);
        assertThat(converters.decode(payload, Charge.class)).isEqualTo(charge);
    }

    @Property
    void shouldRoundTripBytesAsThemselves(@ForAll byte[] bytes) {
        EncodedPayload payload = converters.encode(bytes);

        assertThat(payload.contentType()).isEqualTo(EncodedPayload.OCTET_STREAM);
        assertThat(payload.data()).isEqualTo(bytes);
        assertThat(converters.decode(payload, byte[].class)).isEqualTo(bytes);
    }

    @Property
    void shouldRoundTripAnAvroRecordInSingleObjectEncoding(@ForAll("text") String namespace, @ForAll("text") String workflowId,
                                                           @ForAll("text") String activityId) {
        SiteRef ref = new SiteRef(namespace, workflowId, activityId);

        EncodedPayload payload = converters.encode(ref);

        assertThat(payload.contentType()).isEqualTo(AvroPayloadConverter.CONTENT_TYPE);
        assertThat(payload.data()[0]).isEqualTo((byte) 0xC3);
        assertThat(payload.data()[1]).isEqualTo((byte) 0x01);
        assertThat(converters.decode(payload, SiteRef.class)).isEqualTo(ref);
    }

    @Property
    void shouldRoundTripStringsAndNumbersAsJson(@ForAll("text") String text, @ForAll long number) {
        assertThat(converters.decode(converters.encode(text), String.class)).isEqualTo(text);
        assertThat(converters.decode(converters.encode(number), Long.class)).isEqualTo(number);
    }
}
