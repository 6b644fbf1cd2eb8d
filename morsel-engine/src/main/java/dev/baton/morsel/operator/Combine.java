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
