package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.SplittableRandom;

import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** The wire reader reads what Avro's encoder writes, and reports damage as Avro's decoder would. */
class WireReaderTest {

    @Test
    void shouldReadIntsAndLongsAsAvroWritesThem() throws IOException {
        SplittableRandom random = new SplittableRandom(30);
        for (int t = 0; t < 10_000; t++) {
            int i = random.nextInt();
            long l = random.nextLong();
            WireReader in = reader(e -> {
                e.writeInt(i);
                e.writeLong(l);
            });
            assertThat(in.readInt()).isEqualTo(i);
            assertThat(in.readLong()).isEqualTo(l);
            assertThat(in.isEnd()).isTrue();
        }
    }

    /** Every length of varint, read with bytes after it and right at the value's end. */
    @Test
    void shouldReadEveryLengthOfIntAndLongFarFromTheEndAndAtIt() throws IOException {
        for (int bits = 0; bits < 64; bits++) {
            for (long l : new long[] {1L << bits, (1L << bits) - 1, -(1L << bits), ~(1L << bits)}) {
                int i = (int) l;
                for (boolean padded : new boolean[] {true, false}) {
                    WireReader in = reader(e -> {
                        e.writeLong(l);
                        e.writeInt(i);
                        if (padded) {
                            e.writeFixed(new byte[10]);
                        }
                    });
                    assertThat(in.readLong()).as("long %d, padded %s", l, padded).isEqualTo(l);
                    assertThat(in.readInt()).as("int %d, padded %s", i, padded).isEqualTo(i);
                    assertThat(in.isEnd()).isEqualTo(!padded);
                }
            }
        }
        WireReader in = new WireReader();
        in.reset(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0, 0, 0, 0}, 0, 15);
        assertThatThrownBy(in::readLong).isInstanceOf(IOException.class).isNotInstanceOf(EOFException.class)
                .hasMessageContaining("invalid long");
        in.reset(new byte[] {-1, -1, -1, -1, -1, 1, 0, 0, 0, 0}, 0, 10);
        assertThatThrownBy(in::readInt).isInstanceOf(IOException.class).isNotInstanceOf(EOFException.class)
                .hasMessageContaining("invalid int");
    }

    @Test
    void shouldReadAndSkipStringsAndFixedValues() throws IOException {
        WireReader in = reader(e -> {
            e.writeString("skipped");
            e.writeString("kept é");
            e.writeDouble(2.5);
            e.writeFloat(1.5f);
            e.writeBoolean(true);
        });
        in.skipString();
        ProjectedRow row = new ProjectedRow(1);
        in.readString(row, 0);
        assertThat(row.string(0)).isEqualTo("kept é");
        assertThat(in.readDouble()).isEqualTo(2.5);
        assertThat(in.readFloat()).isEqualTo(1.5f);
        assertThat(in.readBoolean()).isTrue();
        assertThat(in.isEnd()).isTrue();
    }

    @Test
    void shouldSkipABlockByTheByteSizeItsWriterGave() throws IOException {
        // a block of 2 items written with its size (count -2, then 4 bytes), then the end of the array, then a long
        WireReader in = reader(e -> {
            e.writeLong(-2);
            e.writeLong(4);
            e.writeFixed(new byte[] {1, 2, 3, 4});
            e.writeLong(0);
            e.writeLong(77);
        });
        assertThat(in.blockCount(true)).isEqualTo(-1);
        assertThat(in.blockCount(true)).isZero();
        assertThat(in.readLong()).isEqualTo(77);
    }

    @Test
    void shouldReportAValueThatEndsEarlyAsEndOfFile() throws IOException {
        WireReader in = reader(e -> e.writeString("truncated"));
        in.reset(new byte[] {18, 'a', 'b'}, 0, 3);
        assertThatThrownBy(in::skipString).isInstanceOf(EOFException.class);
        in.reset(new byte[] {(byte) 0x80}, 0, 1);
        assertThatThrownBy(in::readLong).isInstanceOf(EOFException.class);
    }

    @Test
    void shouldReportANegativeLengthOrAnOverlongVarintAsCorrupt() {
        WireReader in = new WireReader();
        in.reset(new byte[] {3, 'a'}, 0, 2); // zig-zag 3 is -2
        assertThatThrownBy(in::skipString).isInstanceOf(IOException.class).isNotInstanceOf(EOFException.class)
                .hasMessageContaining("negative");
        in.reset(new byte[] {-1, -1, -1, -1, -1, 1}, 0, 6);
        assertThatThrownBy(in::readInt).isInstanceOf(IOException.class).isNotInstanceOf(EOFException.class)
                .hasMessageContaining("invalid int");
    }

    @FunctionalInterface
    private interface Writes {
        void to(BinaryEncoder e) throws IOException;
    }

    private static WireReader reader(Writes writes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
        writes.to(e);
        e.flush();
        byte[] bytes = out.toByteArray();
        WireReader in = new WireReader();
        in.reset(bytes, 0, bytes.length);
        return in;
    }
}
