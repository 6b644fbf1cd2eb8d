package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.baton.morsel.data.ColumnEncoding;
import dev.baton.morsel.data.PageFile;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The range filter alone: on every encoding it keeps exactly the rows a plain comparison keeps. */
class RangeFilterProperties {

    @Property(tries = 60)
    void shouldKeepExactlyTheRowsInRangeWhateverTheEncoding(@ForAll @IntRange(min = 0, max = 4) int shape,
                                                           @ForAll @LongRange(min = -300, max = 300) long low,
                                                           @ForAll @LongRange(min = 0, max = 400) long width,
                                                           @ForAll @IntRange(min = 0, max = 100_000) int seed) throws IOException {
        Random r = new Random(seed);
        long[][] rows = new long[300][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {value(shape, r)};
        }
        long high = low + width;
        Path dir = Files.createTempDirectory("filter");
        PageFile f = Tables.write(dir, "t", List.of("v"), rows);
        ScanPipeline scan = ScanPipeline.over(f);

        int[][] kept = Tables.survivors(f, RangeFilter.between(scan.col("v"), low, high));

        List<Long> actual = new ArrayList<>();
        for (int p = 0; p < kept.length; p++) {
            for (int i : kept[p]) {
                actual.add(f.column(p, 0).get(i));
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long[] row : rows) {
            if (row[0] >= low && row[0] <= high) {
                expected.add(row[0]);
            }
        }
        assertThat(actual).isEqualTo(expected);
        Files.delete(dir.resolve("t.btn"));
        Files.delete(dir);
    }

    /** 0: bytes around zero; 1: shorts; 2: a dictionary of spread values; 3: ints; 4: any long. */
    private static long value(int shape, Random r) {
        return switch (shape) {
            case 0 -> r.nextInt(200) - 100;
            case 1 -> r.nextInt(40_000) - 20_000;
            case 2 -> (r.nextInt(9) - 4) * 100L + (r.nextInt(9) - 4) * 1_000_000_000_000L;
            case 3 -> r.nextInt(2_000_000_000) - 1_000_000_000L;
            default -> r.nextBoolean() ? r.nextLong() : r.nextInt(600) - 300;
        };
    }

    @Test
    void shouldUseEachNarrowEncodingInTheShapesAbove() throws IOException {
        Path dir = Files.createTempDirectory("shapes");
        Random r = new Random(7);
        List<ColumnEncoding> seen = new ArrayList<>();
        for (int shape = 0; shape < 5; shape++) {
            long[][] rows = new long[64][];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = new long[] {value(shape, r)};
            }
            seen.add(Tables.write(dir, "s" + shape, List.of("v"), rows).column(0, 0).encoding());
        }
        assertThat(seen).containsExactly(ColumnEncoding.BYTE, ColumnEncoding.SHORT, ColumnEncoding.DICTIONARY, ColumnEncoding.INT,
                ColumnEncoding.LONG);
    }

    @Test
    void shouldKeepNothingWhenTheRangeLiesOutsideThePageAndEverythingWhenItIsOpen() throws IOException {
        Path dir = Files.createTempDirectory("edges");
        long[][] rows = {{Long.MAX_VALUE - 3}, {Long.MAX_VALUE - 1}, {Long.MAX_VALUE}};
        PageFile f = Tables.write(dir, "e", List.of("v"), rows);
        ColumnRef v = ScanPipeline.over(f).col("v");
        assertThat(Tables.survivors(f, RangeFilter.atMost(v, Long.MAX_VALUE - 4))[0]).isEmpty();
        assertThat(Tables.survivors(f, new RangeFilter(v, Long.MAX_VALUE - 1, Long.MAX_VALUE))[0]).containsExactly(1, 2);
        assertThat(Tables.survivors(f, new RangeFilter(v, Long.MIN_VALUE, Long.MAX_VALUE))[0]).containsExactly(0, 1, 2);
    }

    @Test
    void shouldRefuseAnEmptyRangeNamingItsBounds() {
        ColumnRef v = new ColumnRef("l_shipdate", 0, true);
        assertThatThrownBy(() -> new RangeFilter(v, 5, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("low <= high").hasMessageContaining("[5, 4]").hasMessageContaining("l_shipdate");
    }
}
