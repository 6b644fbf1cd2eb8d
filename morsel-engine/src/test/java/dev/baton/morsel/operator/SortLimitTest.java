package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SortLimitTest {

    private static AggregateResult rows(int n, long seed) {
        Random r = new Random(seed);
        long[] keys = new long[n];
        long[] values = new long[n * 2];
        for (int i = 0; i < n; i++) {
            keys[i] = i * 3L;
            values[2 * i] = r.nextInt(20); // many ties
            values[2 * i + 1] = r.nextLong();
        }
        return new AggregateResult(keys, values, 2);
    }

    @Test
    void shouldReturnTheFirstRowsOfTheFullSortWithTiesByKey() {
        AggregateResult result = rows(5_000, 3);
        List<long[]> all = new ArrayList<>();
        for (int i = 0; i < result.rows(); i++) {
            all.add(result.row(i));
        }
        all.sort(Comparator.<long[]>comparingLong(r -> -r[1]).thenComparingLong(r -> r[0]));

        List<long[]> top = new SortLimit(List.of(SortLimit.Order.desc(1)), 25).apply(result);

        assertThat(top).hasSize(25);
        for (int i = 0; i < 25; i++) {
            assertThat(top.get(i)).containsExactly(all.get(i));
        }
    }

    @Test
    void shouldReturnEveryRowWhenTheLimitExceedsThem() {
        List<long[]> out = new SortLimit(List.of(SortLimit.Order.asc(2)), 100).apply(rows(10, 1));
        assertThat(out).hasSize(10);
        for (int i = 1; i < out.size(); i++) {
            assertThat(out.get(i)[2]).isGreaterThanOrEqualTo(out.get(i - 1)[2]);
        }
    }

    @Test
    void shouldRefuseASortColumnTheRowsDoNotHave() {
        assertThatThrownBy(() -> new SortLimit(List.of(SortLimit.Order.asc(3)), 5).apply(rows(3, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sort column 3 does not exist");
        assertThatThrownBy(() -> new SortLimit(List.of(), -1)).hasMessageContaining("limit must be >= 0, was -1");
    }
}
