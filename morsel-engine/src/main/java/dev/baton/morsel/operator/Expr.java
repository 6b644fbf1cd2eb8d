package dev.baton.morsel.operator;

/**
 * A 64-bit integer expression over a batch's columns, evaluated a batch at a time: {@link #eval}
 * writes the value of every selected row into {@code out} at that row's index. Fixed-point decimals
 * are longs at a known scale; products grow the scale, which the caller tracks. Overflow wraps
 * silently, as Java's arithmetic does: callers keep values in range (a TPC-H SF 100 sum of
 * scale-6 prices still fits).
 */
public interface Expr {

    /** Writes this expression's value for each selected row of {@code b} into {@code out[row]}; {@code depth} picks scratch vectors. */
    void eval(Batch b, long[] out, int depth);

    static Expr lit(long value) {
        return new Literal(value);
    }

    static Expr add(Expr a, Expr b) {
        return new Arithmetic(Arithmetic.Op.ADD, a, b);
    }

    static Expr sub(Expr a, Expr b) {
        return new Arithmetic(Arithmetic.Op.SUB, a, b);
    }

    static Expr mul(Expr a, Expr b) {
        return new Arithmetic(Arithmetic.Op.MUL, a, b);
    }
}
