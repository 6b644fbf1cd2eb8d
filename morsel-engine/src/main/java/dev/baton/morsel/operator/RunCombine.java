package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * A stage that folds each run of adjacent selected rows with one key into the run's first row, slot by slot as an
 * aggregate would ({@link Combine}: ARG_MAX pairs, MIN, MAX, SUM), and leaves one row selected per run. What follows
 * (a radix deal, an exchange) then carries a row per run instead of a row per input row: a topic's partition holds a
 * site's events together, so history's rows come in runs of a few per site.
 *
 * <p>It only shrinks the rows: two rows of one key that are not adjacent (or that two pages or two workers saw) stay
 * two rows, for the aggregate after it to combine, so the answer is the same whatever the pages, morsels and workers.
 * Its output is computed columns: the key ({@link #key()}) and each slot ({@link #slot(int)}), valid for the selected
 * rows. Build it with {@link ScanPipeline#combineRuns}, then add slots in order before the pipeline is built. Holds no
 * per-worker state: one instance serves every worker.
 */
public final class RunCombine implements Stage {

    private record Slot(Expr input, Combine kind, ColumnRef out) {
    }

    private final Layout layout;
    private final Expr keyInput;
    private final ColumnRef key;
    private final List<Slot> slots = new ArrayList<>();

    RunCombine(Layout layout, Expr keyInput, String name) {
        this.layout = layout;
        this.keyInput = keyInput;
        this.key = layout.addComputed(name + "_key");
    }

    /**
     * Adds {@code ARG_MAX(values, order)} as the next slots: the order, then each value of the row that has the largest
     * order (on equal orders, the larger values in slot order). The values are one row's, whatever the rows' order of
     * arrival, and cost one order between them; with one value it is {@link HashAggregate#maxBy}.
     */
    public RunCombine maxBy(Expr order, Expr... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("an ARG_MAX needs at least one value, was 0");
        }
        add(order, Combine.ARG_MAX_ORDER);
        for (Expr value : values) {
            add(value, Combine.ARG_MAX_VALUE);
        }
        return this;
    }

    /** Adds {@code MIN(input)} as the next slot. */
    public RunCombine min(Expr input) {
        return add(input, Combine.MIN);
    }

    /** Adds {@code MAX(input)} as the next slot. */
    public RunCombine max(Expr input) {
        return add(input, Combine.MAX);
    }

    /** Adds {@code SUM(input)} as the next slot. */
    public RunCombine sum(Expr input) {
        return add(input, Combine.SUM);
    }

    private RunCombine add(Expr input, Combine kind) {
        slots.add(new Slot(input, kind, layout.addComputed(key.name() + "_" + slots.size())));
        return this;
    }

    /** The run's key, per selected row. */
    public ColumnRef key() {
        return key;
    }

    public int slots() {
        return slots.size();
    }

    /** Slot {@code s} combined over the run, per selected row. */
    public ColumnRef slot(int s) {
        return slots.get(s).out();
    }

    /** How each slot combines, in slot order: the aggregate after the stage combines with these. */
    public Combine[] combine() {
        Combine[] c = new Combine[slots.size()];
        for (int s = 0; s < c.length; s++) {
            c[s] = slots.get(s).kind();
        }
        return c;
    }

    @Override
    public void apply(Batch b) {
        Combine[] kinds = combine();
        int n = b.selected();
        int[] sel = b.selection();
        long[] keys = b.computed(key.index());
        keyInput.eval(b, keys, 0);
        int m = slots.size();
        long[][] v = new long[m][];
        for (int s = 0; s < m; s++) {
            v[s] = b.computed(slots.get(s).out().index());
            slots.get(s).input().eval(b, v[s], 0);
        }
        int runs = 0;
        int first = -1;
        for (int j = 0; j < n; j++) {
            int i = sel[j];
            if (first >= 0 && keys[i] == keys[first]) {
                fold(kinds, v, first, i);
            } else {
                first = i;
                sel[runs++] = i; // in place: runs <= j
            }
        }
        b.select(runs);
    }

    /** Folds row {@code i}'s slots into row {@code into}'s, as {@link CombinePlan#combine} does for rows. */
    private static void fold(Combine[] kinds, long[][] v, int into, int i) {
        boolean take = false; // whether row i wins the ARG_MAX group being folded: decided at its order
        for (int s = 0; s < v.length; s++) {
            long[] x = v[s];
            switch (kinds[s]) {
                case SUM -> x[into] += x[i];
                case MIN -> x[into] = Math.min(x[into], x[i]);
                case MAX -> x[into] = Math.max(x[into], x[i]);
                case ARG_MAX_ORDER -> {
                    take = x[i] > x[into] || x[i] == x[into] && valuesAbove(v, s + 1, Combine.argMaxValues(kinds, s), i, into);
                    if (take) {
                        x[into] = x[i];
                    }
                }
                case ARG_MAX_VALUE -> {
                    if (take) {
                        x[into] = x[i];
                    }
                }
            }
        }
    }

    /** Whether row {@code i}'s {@code n} values from slot {@code from} come after row {@code into}'s, in slot order. */
    private static boolean valuesAbove(long[][] v, int from, int n, int i, int into) {
        for (int k = from; k < from + n; k++) {
            if (v[k][i] != v[k][into]) {
                return v[k][i] > v[k][into];
            }
        }
        return false;
    }
}
