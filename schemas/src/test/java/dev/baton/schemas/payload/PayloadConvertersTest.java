package dev.baton.schemas.payload;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;
import org.junit.jupiter.api.Test;

class PayloadConvertersTest {

    record Receipt(String id, long cents) {
    }

    private final PayloadConverters converters = PayloadConverters.defaults();

    @Test
    void shouldReadJsonWhateverItsCharsetParameterAndCase() {
        EncodedPayload payload = new EncodedPayload("{\"id\":\"r-1\",\"cents\":1200}".getBytes(UTF_8), "Application/JSON; charset=utf-8");

        assertThat(converters.decode(payload, Receipt.class)).isEqualTo(new Receipt("r-1", 1200));
    }

    @Test
    void shouldIgnoreJsonPropertiesTheTypeDoesNotHave() {
        EncodedPayload payload = new EncodedPayload("{\"id\":\"r-1\",\"cents\":5,\"currency\":\"EUR\"}".getBytes(UTF_8), "application/json");

        assertThat(converters.decode(payload, Receipt.class)).isEqualTo(new Receipt("r-1", 5));
    }

    @Test
    void shouldRefuseAContentTypeNoConverterReadsNamingIt() {
        EncodedPayload payload = new EncodedPayload("hi".getBytes(UTF_8), "text/plain");

        assertThatThrownBy(() -> converters.decode(payload, Receipt.class)).isInstanceOf(PayloadConversionException.class)
                .hasMessageContaining("'text/plain'").hasMessageContaining("application/json");
    }

    @Test
    void shouldRefuseToReadOctetStreamAsARecord() {
        assertThatThrownBy(() -> converters.decode(EncodedPayload.octetStream(new byte[] {1}), Receipt.class))
                .isInstanceOf(PayloadConversionException.class).hasMessageContaining("byte[] only");
    }

    @Test
    void shouldGiveTheBytesAsTheyAreToACallerAskingForBytes() {
        byte[] json = "{\"id\":\"x\"}".getBytes(UTF_8);

        assertThat(converters.decode(new EncodedPayload(json, "application/json"), byte[].class)).isEqualTo(json);
    }

    @Test
    void shouldNameTheTypeWhenJsonDoesNotFitIt() {
        EncodedPayload payload = new EncodedPayload("[1,2]".getBytes(UTF_8), "application/json");

        assertThatThrownBy(() -> converters.decode(payload, Receipt.class)).isInstanceOf(PayloadConversionException.class)
                .hasMessageContaining(Receipt.class.getName());
    }

    @Test
    void shouldRoundTripANestedAvroRecord() {
        DispatchCommand cmd = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(new SiteRef("n", "w", "a"))
                .setRequestId("r").setReplyKey("c").setAttempt(2).setQueue("q").setActivityType("t")
                .setInput(new Payload(ByteBuffer.wrap(new byte[] {7}), "application/octet-stream")).setRequestedAtMillis(5).build();

        assertThat(converters.decode(converters.encode(cmd), DispatchCommand.class)).isEqualTo(cmd);
    }

    @Test
    void shouldRefuseAvroBytesOfAnotherSchemaByName() {
        EncodedPayload siteRef = converters.encode(new SiteRef("n", "w", "a"));

        assertThatThrownBy(() -> converters.decode(siteRef, DispatchCommand.class)).isInstanceOf(PayloadConversionException.class)
                .hasMessageContaining(DispatchCommand.class.getName());
    }

    @Test
    void shouldLetACustomConverterTakeOverItsContentType() {
        PayloadConverter upper = new PayloadConverter() {
            @Override
            public String contentType() {
                return "application/json";
            }

            @Override
            public boolean canEncode(Class<?> type) {
                return type == String.class;
            }

            @Override
            public byte[] encode(Object value) {
                return ("\"" + value.toString().toUpperCase() + "\"").getBytes(UTF_8);
            }

            @Override
            public <T> T decode(byte[] data, Class<T> type) {
                return type.cast("custom:" + new String(data, UTF_8));
            }
        };
        PayloadConverters custom = PayloadConverters.defaults().with(upper);

        EncodedPayload payload = custom.encode("abc");

        assertThat(new String(payload.data(), UTF_8)).isEqualTo("\"ABC\"");
        assertThat(custom.decode(payload, String.class)).isEqualTo("custom:\"ABC\"");
        assertThat(custom.converters()).hasSize(3);
    }

    @Test
    void shouldWriteNullAsJsonNullAndReadNoBytesAsNull() {
        EncodedPayload none = converters.encode(null);

        assertThat(none).isEqualTo(new EncodedPayload("null".getBytes(UTF_8), "application/json"));
        assertThat(converters.decode(none, Receipt.class)).isNull();
        assertThat(converters.decode(new EncodedPayload(new byte[0], "application/json"), Receipt.class)).isNull();
    }

    @Test
    void shouldCarryThePayloadRecordBothWays() {
        EncodedPayload payload = new EncodedPayload(new byte[] {1, 2}, "application/json");

        assertThat(EncodedPayload.of(payload.toPayload())).isEqualTo(payload);
        assertThat(EncodedPayload.of(null)).isEqualTo(EncodedPayload.octetStream(new byte[0]));
        assertThat(List.of(payload.mediaType())).containsExactly("application/json");
    }
}
