package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * How two rows of an aggregate's slots combine ({@link Combine}, one per slot), made once into runs of adjacent slots
 * that combine alike: combining two rows then decides each ARG_MAX group once, at its order, and moves its values
 * together, where a slot-by-slot loop would dispatch on every slot and count a group's values again on every tie. What
 * every table, merge, fold and build of the engine combines rows with. Immutable, so one plan serves every worker.
 */
public final class CombinePlan {

    private static final byte SUM = 0;
    private static final byte MIN = 1;
    private static final byte MAX = 2;
    private static final byte ARG_MAX = 3;

    /** Per run: how it combines. */
    private final byte[] kind;
    /** Per run: its first slot (an ARG_MAX's order). */
    private final int[] start;
    /** Per run: its slots; an ARG_MAX's values, its order not counted. */
    private final int[] length;

    private CombinePlan(byte[] kind, int[] start, int[] length) {
        this.kind = kind;
        this.start = start;
        this.length = length;
    }

    /**
     * The plan of {@code ops} ({@code null}: every one of {@code slots} slots sums).
     *
     * @throws IllegalStateException where an {@link Combine#ARG_MAX_VALUE} follows no order or an order has no value
     */
    public static CombinePlan of(Combine[] ops, int slots) {
        List<int[]> runs = new ArrayList<>(); // {kind, start, length}
        int s = 0;
        while (s < slots) {
            Combine op = ops == null ? Combine.SUM : ops[s];
            switch (op) {
                case ARG_MAX_ORDER -> {
                    int values = Combine.argMaxValues(ops, s);
                    runs.add(new int[] {ARG_MAX, s, values});
                    s += 1 + values;
                }
                case ARG_MAX_VALUE -> throw new IllegalStateException("slot " + s + " is an ARG_MAX value without its order");
                default -> {
                    int from = s;
                    while (s < slots && (ops == null ? Combine.SUM : ops[s]) == op) {
                        s++;
                    }
                    runs.add(new int[] {op == Combine.SUM ? SUM : op == Combine.MIN ? MIN : MAX, from, s - from});
                }
            }
        }
        byte[] kind = new byte[runs.size()];
        int[] start = new int[runs.size()];
        int[] length = new int[runs.size()];
        for (int r = 0; r < kind.length; r++) {
            kind[r] = (byte) runs.get(r)[0];
            start[r] = runs.get(r)[1];
            length[r] = runs.get(r)[2];
        }
        return new CombinePlan(kind, start, length);
    }

    /**
     * Combines the row at {@code from[fromBase ..]} into the row at {@code into[intoBase ..]}: sums add, a minimum or a
     * maximum keeps the smaller or larger, an ARG_MAX group takes the other row's order and values if its order is larger
     * (on equal orders, if its values are larger, compared in slot order). Into a group's first row, start from each
     * slot's {@link Combine#identity}.
     */
    public void combine(long[] into, int intoBase, long[] from, int fromBase) {
        for (int r = 0; r < kind.length; r++) {
            int a = intoBase + start[r];
            int f = fromBase + start[r];
            int n = length[r];
            switch (kind[r]) {
                case SUM -> {
                    for (int k = 0; k < n; k++) {
                        into[a + k] += from[f + k];
                    }
                }
                case MIN -> {
                    for (int k = 0; k < n; k++) {
                        into[a + k] = Math.min(into[a + k], from[f + k]);
                    }
                }
                case MAX -> {
                    for (int k = 0; k < n; k++) {
                        into[a + k] = Math.max(into[a + k], from[f + k]);
                    }
                }
                default -> {
                    long x = from[f];
                    if (x > into[a] || x == into[a] && Combine.valuesAbove(from, f + 1, into, a + 1, n)) {
                        for (int k = 0; k <= n; k++) {
                            into[a + k] = from[f + k];
                        }
                    }
                }
            }
        }
    }
}
