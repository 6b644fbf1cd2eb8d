package dev.baton.morsel.operator;

/**
 * How an aggregate slot meets another partial's value of the same group. Every kind is associative
 * and commutative, so a merged answer does not depend on which worker or node saw which rows.
 * {@link #ARG_MAX_ORDER} comes first in a run of adjacent slots, followed by one or more {@link #ARG_MAX_VALUE}s: the
 * values of the row with the largest order (on equal orders, the larger values, compared in slot order), the order kept
 * before them. Values of one order move together, so they are always one row's: several values of one record need one
 * order, not one each.
 */
public enum Combine {
    SUM(0),
    MIN(Long.MAX_VALUE),
    MAX(Long.MIN_VALUE),
    ARG_MAX_ORDER(Long.MIN_VALUE),
    ARG_MAX_VALUE(0);

    private final long identity;

    Combine(long identity) {
        this.identity = identity;
    }

    /** A new group's value: the one that changes nothing it is combined with. */
    public long identity() {
        return identity;
    }

    /**
     * Combines the {@code ops.length} slots at {@code from[fromBase ..]} into {@code into[intoBase ..]};
     * {@code ops == null} means every slot sums. Into a group's first row, start from each slot's {@link #identity}.
     */
    public static void combine(Combine[] ops, int slots, long[] into, int intoBase, long[] from, int fromBase) {
        if (ops == null) {
            for (int s = 0; s < slots; s++) {
                into[intoBase + s] += from[fromBase + s];
            }
            return;
        }
        // the ARG_MAX group being combined, and whether its row wins: decided at its order, so its values need no count
        // of their own (counting them per row was a tenth of a folding scan's time)
        boolean inGroup = false;
        boolean take = false;
        for (int s = 0; s < slots; s++) {
            long x = from[fromBase + s];
            int at = intoBase + s;
            switch (ops[s]) {
                case SUM -> {
                    into[at] += x;
                    inGroup = false;
                }
                case MIN -> {
                    into[at] = Math.min(into[at], x);
                    inGroup = false;
                }
                case MAX -> {
                    into[at] = Math.max(into[at], x);
                    inGroup = false;
                }
                case ARG_MAX_ORDER -> {
                    // the values are compared only on a tie, before any of them is taken
                    take = x > into[at] || x == into[at] && valuesAbove(from, fromBase + s + 1, into, at + 1, argMaxValues(ops, s));
                    if (take) {
                        into[at] = x;
                    }
                    inGroup = true;
                }
                case ARG_MAX_VALUE -> {
                    if (!inGroup) {
                        throw new IllegalStateException("slot " + s + " is an ARG_MAX value without its order");
                    }
                    if (take) {
                        into[at] = x;
                    }
                }
            }
        }
    }

    /** How many {@link #ARG_MAX_VALUE} slots follow the {@link #ARG_MAX_ORDER} at {@code order} (at least one). */
    public static int argMaxValues(Combine[] ops, int order) {
        int n = 0;
        while (order + 1 + n < ops.length && ops[order + 1 + n] == ARG_MAX_VALUE) {
            n++;
        }
        if (n == 0) {
            throw new IllegalStateException("the ARG_MAX order at slot " + order + " has no value after it");
        }
        return n;
    }

    /**
     * Whether the {@code n} values at {@code a[from ..]} come after those at {@code b[at ..]}, compared in slot order: the
     * tie-break of two equal orders, which keeps a merged answer independent of the order partials meet in.
     */
    public static boolean valuesAbove(long[] a, int from, long[] b, int at, int n) {
        for (int i = 0; i < n; i++) {
            if (a[from + i] != b[at + i]) {
                return a[from + i] > b[at + i];
            }
        }
        return false;
    }

    /** Whether {@code ops} has any slot that does not sum. */
    static boolean onlySums(Combine[] ops) {
        if (ops == null) {
            return true;
        }
        for (Combine c : ops) {
            if (c != SUM) {
                return false;
            }
        }
        return true;
    }
}
