package dev.baton.morsel.operator;

import java.util.Arrays;

/**
 * An aggregate's answer: {@code rows} group keys in ascending order, each with {@code slots} accumulators
 * ({@code values[row * slots + slot]}). The same for any worker count or exchange layout.
 *
 * <p>The arrays may be longer than the answer: only {@code keys[0 .. rows)} and {@code values[0 .. rows * slots)} are
 * its rows. An aggregate hands over the arrays it filled (a single worker's table, or an answer allocated during the scan
 * at the expected group count) rather than copying them into exact-size ones.
 */
public record AggregateResult(long[] keys, long[] values, int slots, int rows) {

    public AggregateResult {
        if (rows < 0 || rows > keys.length || (long) rows * slots > values.length) {
            throw new IllegalArgumentException("rows must fit the arrays (" + keys.length + " keys, " + values.length + " values, "
                    + slots + " slots), was " + rows);
        }
    }

    /** An answer whose arrays hold exactly its rows. */
    public AggregateResult(long[] keys, long[] values, int slots) {
        this(keys, values, slots, keys.length);
    }

    public long key(int row) {
        return keys[row];
    }

    public long value(int row, int slot) {
        return values[row * slots + slot];
    }

    /** The keys of the answer's rows, in an array of their own. */
    public long[] rowKeys() {
        return Arrays.copyOf(keys, rows);
    }

    /** The accumulators of the answer's rows, in an array of their own. */
    public long[] rowValues() {
        return Arrays.copyOf(values, rows * slots);
    }

    /** Row {@code row} as {@code [key, slot 0, slot 1, ...]}. */
    public long[] row(int row) {
        long[] r = new long[slots + 1];
        r[0] = keys[row];
        System.arraycopy(values, row * slots, r, 1, slots);
        return r;
    }
}
