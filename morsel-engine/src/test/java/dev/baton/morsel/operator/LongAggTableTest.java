package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The partial table: slot bases that survive growth, and sorted output whatever the insertion order. */
class LongAggTableTest {

    @Test
    void shouldKeepSlotBasesWhenTheTableGrows() {
        LongAggTable t = new LongAggTable(2, 1);
        int first = t.slotBase(1_000_003L);
        t.values()[first] = 42;
        for (long k = 0; k < 100_000; k++) {
            t.slotBase(k * 17);
        }
        assertThat(t.slotBase(1_000_003L)).isEqualTo(first);
        assertThat(t.values()[first]).isEqualTo(42);
    }

    @Test
    void shouldAnswerKeysAscendingWhetherFilledInOrderOrNot() {
        LongAggTable ascending = new LongAggTable(1, 4);
        LongAggTable descending = new LongAggTable(1, 4);
        for (long k = 0; k < 70_000; k++) {
            ascending.add(ascending.slotBase(k * 3 - 5), 0, k);
            long d = 70_000 - 1 - k;
            descending.add(descending.slotBase(d * 3 - 5), 0, d);
        }
        AggregateResult a = ascending.sorted();
        AggregateResult d = descending.sorted();
        assertThat(a.rowKeys()).isEqualTo(d.rowKeys()).isSorted().hasSize(70_000);
        assertThat(a.rowValues()).isEqualTo(d.rowValues());
        assertThat(a.row(69_999)).containsExactly(69_999 * 3L - 5, 69_999L);
    }

    @Test
    void shouldMergeAFewAscendingRunsIntoOneSortedAnswer() {
        // a worker's morsels of clustered keys: 0-999, then 3000-3999 (a stolen morsel), then 1000-2999
        LongAggTable t = new LongAggTable(2, 16);
        long[][] ranges = {{0, 1_000}, {3_000, 4_000}, {1_000, 3_000}};
        for (long[] range : ranges) {
            for (long k = range[0]; k < range[1]; k++) {
                int base = t.slotBase(k * 100_003);
                t.add(base, 0, 1);
                t.add(base, 1, k);
            }
        }
        AggregateResult r = t.sorted();
        assertThat(r.rows()).isEqualTo(4_000);
        for (int i = 0; i < r.rows(); i++) {
            assertThat(r.row(i)).containsExactly(i * 100_003L, 1L, (long) i);
        }
    }

    @Test
    void shouldKnowItsRunsFromItsInsertsAndSortWhenThereAreTooMany() {
        for (int blocks : new int[] {LongAggTable.MAX_MERGED_RUNS, LongAggTable.MAX_MERGED_RUNS + 1}) {
            LongAggTable t = new LongAggTable(1, 8);
            for (int b = blocks - 1; b >= 0; b--) { // blocks of ascending keys, the blocks descending: one run each
                for (long k = b * 100L; k < b * 100L + 100; k++) {
                    t.add(t.slotBase(k), 0, k);
                }
            }
            assertThat(t.inFewRuns()).as("%d runs", blocks).isEqualTo(blocks <= LongAggTable.MAX_MERGED_RUNS);
            AggregateResult r = t.sorted();
            assertThat(r.rowKeys()).isSorted().hasSize(blocks * 100);
            for (int i = 0; i < r.rows(); i++) {
                assertThat(r.row(i)).containsExactly((long) i, (long) i);
            }
        }
    }

    @Test
    void shouldGiveEachSelectedRowItsGroupsSlotBase() {
        LongAggTable t = new LongAggTable(3, 4);
        long[] keys = {7, 7, 100_000, 5, 100_000, 100_001, 7};
        int[] sel = {0, 1, 2, 3, 4, 5, 6};
        int[] out = new int[keys.length];
        t.slotBases(keys, sel, keys.length, out);
        for (int j = 0; j < keys.length; j++) {
            assertThat(out[j]).isEqualTo(t.slotBase(keys[j]));
        }
        assertThat(t.size()).isEqualTo(4);
    }

    @Test
    void shouldAddWholeRowsPastTheGroupsItWasSizedForWithEveryCombineKind() {
        // a row added to a new group that grows the table: the accumulators land in the grown array (a regression once
        // read the array before the insert replaced it, and threw ArrayIndexOutOfBoundsException at the first growth)
        Combine[][] kinds = {null, {Combine.SUM, Combine.MIN, Combine.MAX}};
        for (Combine[] combine : kinds) {
            LongAggTable t = new LongAggTable(3, 8, combine);
            for (int pass = 0; pass < 2; pass++) {
                for (long k = 0; k < 5_000; k++) {
                    t.addAll(k * 7_919, new long[] {k, k + pass, k - pass}, 0);
                }
            }
            AggregateResult r = t.sorted();
            assertThat(r.rows()).isEqualTo(5_000);
            for (int g = 0; g < r.rows(); g++) {
                long k = g;
                assertThat(r.row(g)).as("group %d, %s", g, combine == null ? "sums" : "sum/min/max")
                        .containsExactly(k * 7_919, 2 * k, combine == null ? 2 * k + 1 : k, combine == null ? 2 * k - 1 : k);
            }
        }
    }
}
