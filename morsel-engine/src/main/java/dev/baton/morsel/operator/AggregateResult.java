package dev.baton.morsel.operator;

/**
 * An aggregate's answer: group keys in ascending order, each with {@code slots} accumulators
 * ({@code values[row * slots + slot]}). The same for any worker count or exchange layout.
 */
public record AggregateResult(long[] keys, long[] values, int slots) {

    public int rows() {
        return keys.length;
    }

    public long key(int row) {
        return keys[row];
    }

    public long value(int row, int slot) {
        return values[row * slots + slot];
    }

    /** Row {@code row} as {@code [key, slot 0, slot 1, ...]}. */
    public long[] row(int row) {
        long[] r = new long[slots + 1];
        r[0] = keys[row];
        System.arraycopy(values, row * slots, r, 1, slots);
        return r;
    }
}
