package dev.baton.morsel.operator;

/**
 * How an aggregate slot meets another partial's value of the same group. Every kind is associative
 * and commutative, so a merged answer does not depend on which worker or node saw which rows.
 * {@link #ARG_MAX_ORDER} and {@link #ARG_MAX_VALUE} come as a pair of adjacent slots: the value of
 * the row with the largest order (on equal orders, the larger value), the order kept beside it.
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
     * {@code ops == null} means every slot sums.
     */
    static void combine(Combine[] ops, int slots, long[] into, int intoBase, long[] from, int fromBase) {
        if (ops == null) {
            for (int s = 0; s < slots; s++) {
                into[intoBase + s] += from[fromBase + s];
            }
            return;
        }
        for (int s = 0; s < slots; s++) {
            long x = from[fromBase + s];
            int at = intoBase + s;
            switch (ops[s]) {
                case SUM -> into[at] += x;
                case MIN -> into[at] = Math.min(into[at], x);
                case MAX -> into[at] = Math.max(into[at], x);
                case ARG_MAX_ORDER -> {
                    long v = from[fromBase + s + 1];
                    if (x > into[at] || x == into[at] && v > into[at + 1]) {
                        into[at] = x;
                        into[at + 1] = v;
                    }
                }
                case ARG_MAX_VALUE -> { } // moved with its order
            }
        }
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
