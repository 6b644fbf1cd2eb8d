package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/** {@link EncodeBuffer}'s encoder writes what Avro's own binary encoder writes, byte for byte. */
class EncodeBufferProperties {

    /** One field written to an encoder; {@code shown} names it when a case fails. */
    record Field(String shown, Write write) {
        @Override
        public String toString() {
            return shown;
        }
    }

    interface Write {
        void to(Encoder out) throws IOException;
    }

    /** Bytes from a buffer whose position is {@code skip}, so a read-from-the-position bug shows; the position must stay. */
    private static Field bytesField(byte[] value, int skip, boolean direct) {
        return new Field("bytes " + value.length + " from " + skip + (direct ? " (direct)" : ""), out -> {
            ByteBuffer b = direct ? ByteBuffer.allocateDirect(value.length) : ByteBuffer.allocate(value.length);
            b.put(value).flip().position(Math.min(skip, value.length));
            int before = b.position();
            out.writeBytes(b);
            assertThat(b.position()).as("the caller's position").isEqualTo(before);
        });
    }

    @Property(tries = 3000)
    void shouldWriteWhatAvroWrites(@ForAll("fields") List<Field> fields) throws IOException {
        assertThat(ours(fields)).isEqualTo(avros(fields));
    }

    @Example
    void shouldWriteEveryExampleEventAsAvroDoes() throws IOException {
        for (EventExamples.Example example : EventExamples.all()) {
            SpecificRecord event = example.event();
            @SuppressWarnings("unchecked")
            SpecificDatumWriter<SpecificRecord> writer = new SpecificDatumWriter<>((Class<SpecificRecord>) event.getClass());
            EncodeBuffer buffer = EncodeBuffer.detached();
            writer.write(event, buffer.encoder());
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            BinaryEncoder avro = EncoderFactory.get().directBinaryEncoder(expected, null);
            writer.write(event, avro);
            assertThat(buffer.toByteArray()).as(event.getClass().getSimpleName()).isEqualTo(expected.toByteArray());
        }
    }

    @Provide
    Arbitrary<List<Field>> fields() {
        Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMaxLength(80);
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(40); // surrogates, unpaired ones too
        Arbitrary<String> latin1 = Arbitraries.strings().withCharRange('\u0000', '\u00ff').ofMaxLength(40);
        Arbitrary<Field> field = Arbitraries.oneOf(
                Arbitraries.oneOf(ascii, any, latin1).map(v -> new Field("string " + v.codePoints().boxed().toList(), out -> out.writeString(v))),
                Arbitraries.integers().map(v -> new Field("int " + v, out -> out.writeInt(v))),
                Arbitraries.longs().map(v -> new Field("long " + v, out -> out.writeLong(v))),
                Arbitraries.doubles().map(v -> new Field("double " + v, out -> out.writeDouble(v))),
                Arbitraries.floats().map(v -> new Field("float " + v, out -> out.writeFloat(v))),
                Arbitraries.of(true, false).map(v -> new Field("boolean " + v, out -> out.writeBoolean(v))),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(3000).flatMap(b -> Arbitraries.integers().between(0, 5)
                        .flatMap(skip -> Arbitraries.of(true, false).map(direct -> bytesField(b, skip, direct)))));
        return field.list().ofMaxSize(60); // past the buffer's first 1,024 bytes, so it grows mid-record
    }

    private static byte[] ours(List<Field> fields) throws IOException {
        EncodeBuffer buffer = EncodeBuffer.detached();
        for (Field f : fields) {
            f.write().to(buffer.encoder());
        }
        return buffer.toByteArray();
    }

    private static byte[] avros(List<Field> fields) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder avro = EncoderFactory.get().directBinaryEncoder(out, null);
        for (Field f : fields) {
            f.write().to(avro);
        }
        return out.toByteArray();
    }
}
