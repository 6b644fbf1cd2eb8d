package dev.baton.morsel.data;

/** Every value of a column lies in {@code [min, max]} (bounds, not necessarily values that occur). */
public record ValueRange(long min, long max) {

    public ValueRange {
        if (max < min) {
            throw new IllegalArgumentException("a value range needs min <= max, was [" + min + ", " + max + "]");
        }
    }
}
