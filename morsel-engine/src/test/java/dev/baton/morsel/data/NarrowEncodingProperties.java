package dev.baton.morsel.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Narrow encodings round-trip at their boundaries, and each page gets the narrowest that fits. */
class NarrowEncodingProperties {

    /** Spans at and around each width's limit: 0xFF fits a byte, 0x100 does not, and so on. */
    @Provide
    Arbitrary<Long> spans() {
        return Arbitraries.of(0L, 1L, 0xFEL, 0xFFL, 0x100L, 0xFFFFL, 0x1_0000L, 0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE);
    }

    @Property(tries = 150)
    void shouldRoundTripEveryValueAndPickTheNarrowestWidth(@ForAll("spans") long span,
                                                         @ForAll @LongRange(min = Long.MIN_VALUE, max = Long.MAX_VALUE) long base,
                                                         @ForAll @IntRange(min = 2, max = 600) int rows,
                                                         @ForAll @IntRange(min = 0, max = 1_000_000) int seed) {
        long min = Math.max(Long.MIN_VALUE, Math.min(base, Long.MAX_VALUE - span)); // keep min + span representable
        long[] values = new long[rows];
        java.util.Random r = new java.util.Random(seed);
        for (int i = 0; i < rows; i++) {
            values[i] = min + (span == 0 ? 0 : Math.floorMod(r.nextLong(), span + (span == Long.MAX_VALUE ? 0 : 1)));
        }
        values[0] = min;
        values[rows - 1] = min + span; // both ends of the span are present

        ColumnPage page = encodeAndRead(values);

        assertThat(page.toLongArray()).isEqualTo(values);
        ColumnEncoding frame = span <= 0xFFL ? ColumnEncoding.BYTE : span <= 0xFFFFL ? ColumnEncoding.SHORT
                : span <= 0xFFFF_FFFFL ? ColumnEncoding.INT : ColumnEncoding.LONG;
        assertThat(page.encoding()).isIn(frame, ColumnEncoding.DICTIONARY);
        assertThat(page.data().capacity()).isLessThanOrEqualTo(rows * frame.bytesPerValue());
        assertWithinBounds(page, values);
    }

    /** The bounds a page's encoding gives (what a join build sizes its table from) hold every value. */
    private static void assertWithinBounds(ColumnPage page, long[] values) {
        for (long v : values) {
            assertThat(v).as(page.encoding() + " page bounds").isBetween(page.lowerBound(), page.upperBound());
        }
    }

    @Property(tries = 200)
    void shouldUseADictionaryForFewDistinctWideValuesUpTo256(@ForAll @IntRange(min = 1, max = 300) int distinct,
                                                            @ForAll @IntRange(min = 0, max = 1_000_000) int seed) {
        int rows = 4096;
        long[] pool = new long[distinct];
        java.util.Random r = new java.util.Random(seed);
        for (int d = 0; d < distinct; d++) {
            pool[d] = (long) d * 1_000_003L * 1_000_003L - r.nextInt(1000); // spread wide: a frame would need LONG or INT
        }
        long[] values = new long[rows];
        for (int i = 0; i < rows; i++) {
            values[i] = pool[i < distinct ? i : r.nextInt(distinct)];
        }

        ColumnPage page = encodeAndRead(values);

        assertThat(page.toLongArray()).isEqualTo(values);
        if (distinct <= ColumnEncoding.MAX_DICTIONARY && distinct > 1) {
            assertThat(page.encoding()).isEqualTo(ColumnEncoding.DICTIONARY);
            assertThat(page.dictionary()).isSorted().hasSize(distinct);
        } else if (distinct > ColumnEncoding.MAX_DICTIONARY) {
            assertThat(page.encoding()).isNotEqualTo(ColumnEncoding.DICTIONARY);
        }
        assertWithinBounds(page, values);
    }

    private static ColumnPage encodeAndRead(long[] values) {
        PageEncoder encoder = new PageEncoder(values.length);
        PageEncoder.Encoded e = encoder.encode(values, values.length);
        byte[] bytes = new byte[e.bytes()];
        encoder.buffer().get(0, bytes);
        return new ColumnPage(e.encoding(), values.length, e.base(), java.nio.ByteBuffer.wrap(bytes), e.dictionary());
    }

    @Property(tries = 10)
    void shouldRoundTripAFileOfMixedColumnsAcrossPages(@ForAll @IntRange(min = 0, max = 3000) int rows,
                                                      @ForAll @IntRange(min = 0, max = 1_000_000) int seed) throws IOException {
        Path dir = Files.createTempDirectory("narrow");
        Path file = dir.resolve("t.btn");
        java.util.Random r = new java.util.Random(seed);
        long[][] expected = new long[rows][];
        try (PageFileWriter w = new PageFileWriter(file, List.of("flag", "date", "key", "price", "wide"), 1024)) {
            for (int i = 0; i < rows; i++) {
                expected[i] = new long[] {"ANR".charAt(r.nextInt(3)), 8000 + r.nextInt(2600), 1_000_000_000L + i * 4L,
                        r.nextInt(10_000_000) * 100L, r.nextLong()};
                w.append(expected[i]);
            }
        }
        try (PageFile f = PageFile.open(file)) {
            assertThat(f.rowCount()).isEqualTo(rows);
            int row = 0;
            for (int p = 0; p < f.pageCount(); p++) {
                for (int i = 0; i < f.rowsIn(p); i++, row++) {
                    for (int c = 0; c < 5; c++) {
                        assertThat(f.column(p, c).get(i)).isEqualTo(expected[row][c]);
                        assertThat(f.page(p, c).get(i)).isEqualTo(expected[row][c]);
                    }
                }
                assertThat(f.column(p, 0).encoding()).isEqualTo(ColumnEncoding.BYTE); // three flags span 17
                assertThat(f.column(p, 1).encoding()).isIn(ColumnEncoding.BYTE, ColumnEncoding.SHORT, ColumnEncoding.DICTIONARY);
                if (f.rowsIn(p) > 1) { // random longs: no narrower width fits (one row spans nothing)
                    assertThat(f.column(p, 4).data().capacity()).isEqualTo(f.rowsIn(p) * 8);
                }
            }
            assertThat(row).isEqualTo(rows);
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }
}
