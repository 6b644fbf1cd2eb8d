package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * A plan combines rows exactly as the plain slot-by-slot loop of {@link Combine}'s contract does ({@link #reference}),
 * whatever the slots' layout: runs of sums, minimums and
 * maximums side by side, ARG_MAX groups of one or more values, ties on the order (decided by the values), rows that
 * start from each slot's identity. Values are drawn from a few so that ties and equal values are common.
 */
class CombinePlanProperties {

    @Property(tries = 300)
    void shouldCombineAsCombineDoesWhateverTheLayout(@ForAll @IntRange(min = 0, max = 1_000_000) int seed) {
        Random r = new Random(seed);
        Combine[] ops = layout(r);
        CombinePlan plan = CombinePlan.of(ops, ops.length);
        long[] expected = identities(ops);
        long[] actual = identities(ops);
        for (int row = 0; row < 40; row++) {
            long[] from = new long[ops.length + 3];
            for (int s = 0; s < from.length; s++) {
                from[s] = r.nextInt(4) - 1;
            }
            int at = r.nextInt(3);
            reference(ops, expected, from, at);
            plan.combine(actual, 0, from, at);
            assertThat(actual).as("seed %d, layout %s, after row %d", seed, List.of(ops), row).containsExactly(expected);
        }
    }

    @Test
    void shouldSumEverySlotWithoutKinds() {
        CombinePlan plan = CombinePlan.of(null, 3);
        long[] into = {1, 2, 3, 9};
        plan.combine(into, 1, new long[] {5, 10, 20, 30}, 1);
        assertThat(into).containsExactly(1, 12, 23, 39);
    }

    @Test
    void shouldRefuseAValueWithoutItsOrderAndAnOrderWithoutValuesWhenMade() {
        assertThatThrownBy(() -> CombinePlan.of(new Combine[] {Combine.SUM, Combine.ARG_MAX_VALUE}, 2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("slot 1");
        assertThatThrownBy(() -> CombinePlan.of(new Combine[] {Combine.ARG_MAX_ORDER, Combine.SUM}, 2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("slot 0");
    }

    /** One to four runs of random kinds and lengths; an ARG_MAX group is its order and one to four values. */
    private static Combine[] layout(Random r) {
        List<Combine> ops = new ArrayList<>();
        for (int run = 1 + r.nextInt(4); run > 0; run--) {
            int length = 1 + r.nextInt(4);
            switch (r.nextInt(4)) {
                case 0 -> ops.addAll(List.of(fill(Combine.SUM, length)));
                case 1 -> ops.addAll(List.of(fill(Combine.MIN, length)));
                case 2 -> ops.addAll(List.of(fill(Combine.MAX, length)));
                default -> {
                    ops.add(Combine.ARG_MAX_ORDER);
                    ops.addAll(List.of(fill(Combine.ARG_MAX_VALUE, length)));
                }
            }
        }
        return ops.toArray(Combine[]::new);
    }

    private static Combine[] fill(Combine c, int n) {
        Combine[] a = new Combine[n];
        java.util.Arrays.fill(a, c);
        return a;
    }

    private static long[] identities(Combine[] ops) {
        long[] v = new long[ops.length];
        for (int s = 0; s < ops.length; s++) {
            v[s] = ops[s].identity();
        }
        return v;
    }

    /** Each slot in turn: an ARG_MAX group's row is chosen at its order (larger order, or equal order and larger values). */
    private static void reference(Combine[] ops, long[] into, long[] from, int fromBase) {
        boolean take = false;
        for (int s = 0; s < ops.length; s++) {
            long x = from[fromBase + s];
            switch (ops[s]) {
                case SUM -> into[s] += x;
                case MIN -> into[s] = Math.min(into[s], x);
                case MAX -> into[s] = Math.max(into[s], x);
                case ARG_MAX_ORDER -> {
                    int n = 0;
                    while (s + 1 + n < ops.length && ops[s + 1 + n] == Combine.ARG_MAX_VALUE) {
                        n++;
                    }
                    int differs = 0;
                    while (differs < n && from[fromBase + s + 1 + differs] == into[s + 1 + differs]) {
                        differs++;
                    }
                    take = x > into[s] || x == into[s] && differs < n && from[fromBase + s + 1 + differs] > into[s + 1 + differs];
                    if (take) {
                        into[s] = x;
                    }
                }
                case ARG_MAX_VALUE -> {
                    if (take) {
                        into[s] = x;
                    }
                }
            }
        }
    }
}
