package dev.baton.morsel.operator;

/**
 * {@code a op b} over longs. A literal operand is folded into the loop rather than materialised, and
 * a column operand is read where it lies rather than copied: a computed column's vector, or a source
 * column's page widened once per batch ({@link Batch#vector}).
 */
public record Arithmetic(Op op, Expr a, Expr b) implements Expr {

    public enum Op { ADD, SUB, MUL }

    @Override
    public void eval(Batch batch, long[] out, int depth) {
        if (batch.computeAllRows()) {
            evalAll(batch, out, depth);
            return;
        }
        int[] sel = batch.selection();
        int n = batch.selected();
        if (b instanceof Literal k) {
            long[] x = operand(a, batch, out, depth);
            withConstant(x, k.value(), false, out, sel, n);
        } else if (a instanceof Literal k) {
            long[] x = operand(b, batch, out, depth);
            withConstant(x, k.value(), true, out, sel, n);
        } else {
            long[] x = operand(a, batch, out, depth + 1);
            long[] y = operand(b, batch, batch.scratch(depth), depth + 1);
            apply(x, y, out, sel, n);
        }
    }

    /** Every row of the page, in straight loops: most rows are alive (see {@link Batch#computeAllRows}). */
    private void evalAll(Batch batch, long[] out, int depth) {
        int n = batch.rows();
        if (fusedWithNarrow(batch, out, depth, n)) {
            return;
        }
        if (b instanceof Literal k) {
            long[] x = operand(a, batch, out, depth);
            allWithConstant(x, k.value(), false, out, n);
        } else if (a instanceof Literal k) {
            long[] x = operand(b, batch, out, depth);
            allWithConstant(x, k.value(), true, out, n);
        } else {
            long[] x = operand(a, batch, out, depth + 1);
            long[] y = operand(b, batch, batch.scratch(depth), depth + 1);
            switch (op) {
                case ADD -> { for (int i = 0; i < n; i++) { out[i] = x[i] + y[i]; } }
                case SUB -> { for (int i = 0; i < n; i++) { out[i] = x[i] - y[i]; } }
                case MUL -> { for (int i = 0; i < n; i++) { out[i] = x[i] * y[i]; } }
            }
        }
    }

    /**
     * When one operand is a source column stored as offsets from a base (byte, short, int), widens
     * it and applies the operation in one loop ({@link NarrowColumn#linear}, {@code plus},
     * {@code times}) instead of widening it into a vector first; false when neither operand is one.
     */
    private boolean fusedWithNarrow(Batch batch, long[] out, int depth, int n) {
        boolean left = a instanceof ColumnRef c && c.source() && batch.narrow(c.index()).framed();
        boolean right = !left && b instanceof ColumnRef c && c.source() && batch.narrow(c.index()).framed();
        if (!left && !right) {
            return false;
        }
        NarrowColumn x = batch.narrow(((ColumnRef) (left ? a : b)).index());
        Expr other = left ? b : a;
        if (other instanceof Literal k) {
            long v = k.value();
            switch (op) {
                case ADD -> x.linear(1, x.base + v, out, n);
                case MUL -> x.linear(v, x.base * v, out, n);
                case SUB -> {
                    if (left) {
                        x.linear(1, x.base - v, out, n);
                    } else {
                        x.linear(-1, v - x.base, out, n);
                    }
                }
            }
            return true;
        }
        long[] y = operand(other, batch, out, depth + 1); // may be out itself: each loop reads y[i] before writing out[i]
        switch (op) {
            case ADD -> x.plus(1, y, out, n);
            case MUL -> x.times(y, out, n);
            case SUB -> {
                if (left) {
                    x.plus(1, negated(y, out, n), out, n);
                } else {
                    x.plus(-1, y, out, n);
                }
            }
        }
        return true;
    }

    /** {@code -y} into {@code out} (which may be {@code y}). */
    private static long[] negated(long[] y, long[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = -y[i];
        }
        return out;
    }

    private void allWithConstant(long[] x, long k, boolean constantFirst, long[] out, int n) {
        switch (op) {
            case ADD -> { for (int i = 0; i < n; i++) { out[i] = x[i] + k; } }
            case MUL -> { for (int i = 0; i < n; i++) { out[i] = x[i] * k; } }
            case SUB -> {
                if (constantFirst) {
                    for (int i = 0; i < n; i++) { out[i] = k - x[i]; }
                } else {
                    for (int i = 0; i < n; i++) { out[i] = x[i] - k; }
                }
            }
        }
    }

    private static long[] operand(Expr e, Batch batch, long[] into, int depth) {
        return batch.vector(e, into, depth);
    }

    private void withConstant(long[] x, long k, boolean constantFirst, long[] out, int[] sel, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] + k; } }
            case MUL -> { for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] * k; } }
            case SUB -> {
                if (constantFirst) {
                    for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = k - x[i]; }
                } else {
                    for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] - k; }
                }
            }
        }
    }

    private void apply(long[] x, long[] y, long[] out, int[] sel, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] + y[i]; } }
            case SUB -> { for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] - y[i]; } }
            case MUL -> { for (int j = 0; j < n; j++) { int i = sel[j]; out[i] = x[i] * y[i]; } }
        }
    }
}
