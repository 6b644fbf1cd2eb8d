package dev.baton.morsel.operator;

/** {@code a op b} over longs; a literal operand is folded into the loop rather than materialised. */
public record Arithmetic(Op op, Expr a, Expr b) implements Expr {

    public enum Op { ADD, SUB, MUL }

    @Override
    public void eval(Batch batch, long[] out, int depth) {
        int[] sel = batch.selection();
        int n = batch.selected();
        if (b instanceof Literal k) {
            a.eval(batch, out, depth);
            applyConstantRight(out, k.value(), sel, n);
        } else if (a instanceof Literal k) {
            b.eval(batch, out, depth);
            applyConstantLeft(k.value(), out, sel, n);
        } else {
            long[] right = batch.scratch(depth);
            a.eval(batch, out, depth + 1);
            b.eval(batch, right, depth + 1);
            apply(out, right, sel, n);
        }
    }

    private void applyConstantRight(long[] x, long k, int[] sel, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) { x[sel[j]] += k; } }
            case SUB -> { for (int j = 0; j < n; j++) { x[sel[j]] -= k; } }
            case MUL -> { for (int j = 0; j < n; j++) { x[sel[j]] *= k; } }
        }
    }

    private void applyConstantLeft(long k, long[] x, int[] sel, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) { x[sel[j]] += k; } }
            case SUB -> { for (int j = 0; j < n; j++) { int i = sel[j]; x[i] = k - x[i]; } }
            case MUL -> { for (int j = 0; j < n; j++) { x[sel[j]] *= k; } }
        }
    }

    private void apply(long[] x, long[] y, int[] sel, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) { int i = sel[j]; x[i] += y[i]; } }
            case SUB -> { for (int j = 0; j < n; j++) { int i = sel[j]; x[i] -= y[i]; } }
            case MUL -> { for (int j = 0; j < n; j++) { int i = sel[j]; x[i] *= y[i]; } }
        }
    }
}
