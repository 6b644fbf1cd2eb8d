package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The block search the sorted-run merge counts and copies by: the same answer as stepping row by row. */
class SortedRunMergeProperties {

    @Property(tries = 500)
    void shouldEndABlockWhereARowByRowScanEndsIt(@ForAll @Size(min = 1, max = 300) long[] raw, @ForAll @IntRange(min = 0, max = 299) int from,
                                                 @ForAll long bound) {
        long[] keys = Arrays.stream(raw).distinct().sorted().toArray();
        int start = Math.min(from, keys.length - 1);
        if (keys[start] >= bound) {
            return; // a block starts below the bound
        }
        int scan = start + 1;
        while (scan < keys.length && keys[scan] < bound) {
            scan++;
        }
        assertThat(SortedRunMerge.blockEnd(keys, start, keys.length, bound)).isEqualTo(scan);
    }
}
