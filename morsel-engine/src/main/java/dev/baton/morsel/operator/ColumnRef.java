package dev.baton.morsel.operator;

/**
 * A column of a pipeline's {@link Layout}: a source column (read from its page in the stored
 * encoding) or a computed one. Get one from {@link Layout#col} or {@link ScanPipeline#col}.
 */
public record ColumnRef(String name, int index, boolean source) implements Expr {

    /*
     * Evaluating a source column decodes its values from the narrow page: the only place a narrow
     * value becomes a long, and only for an expression that combines it with others — all rows when
     * most are alive (one straight loop), else the selected ones.
     */
    @Override
    public void eval(Batch b, long[] out, int depth) {
        if (!source) {
            long[] v = b.computed(index);
            if (b.computeAllRows()) {
                System.arraycopy(v, 0, out, 0, b.rows());
                return;
            }
            int[] sel = b.selection();
            for (int j = 0, n = b.selected(); j < n; j++) {
                out[sel[j]] = v[sel[j]];
            }
            return;
        }
        if (b.computeAllRows()) {
            b.narrow(index).copyTo(out, b.rows());
        } else {
            b.narrow(index).decode(b.selection(), b.selected(), out);
        }
    }
}
