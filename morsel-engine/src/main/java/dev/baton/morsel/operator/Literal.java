package dev.baton.morsel.operator;

/** A constant. */
public record Literal(long value) implements Expr {

    @Override
    public void eval(Batch b, long[] out, int depth) {
        if (b.computeAllRows()) {
            java.util.Arrays.fill(out, 0, b.rows(), value);
            return;
        }
        int[] sel = b.selection();
        for (int j = 0, n = b.selected(); j < n; j++) {
            out[sel[j]] = value;
        }
    }
}
