package dev.baton.morsel.operator;

import java.nio.ByteBuffer;

import dev.baton.morsel.data.ColumnPage;

/**
 * A column of a pipeline's {@link Layout}: a source column (read from its page in the stored
 * encoding) or a computed one. Get one from {@link Layout#col} or {@link ScanPipeline#col}.
 */
public record ColumnRef(String name, int index, boolean source) implements Expr {

    /*
     * Evaluating a source column decodes its values from the narrow page: the only place a narrow
     * value becomes a long, and only for an expression that combines it with others — all rows when
     * most are alive (one straight loop), else the selected ones: from the batch's heap copy of the
     * page, or in place when so few rows are left that copying the page would cost more (Q14 keeps
     * 1% of a page after its date filter).
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
        } else if (b.fewRows()) {
            decode(b.page(index), b.selection(), b.selected(), out);
        } else {
            b.narrow(index).decode(b.selection(), b.selected(), out);
        }
    }

    /** Decodes the selected rows' values into {@code out[row]}. */
    static void decode(ColumnPage page, int[] sel, int n, long[] out) {
        ByteBuffer d = page.data();
        long base = page.base();
        switch (page.encoding()) {
            case BYTE -> {
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    out[i] = base + (d.get(i) & 0xFF);
                }
            }
            case SHORT -> {
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    out[i] = base + (d.getShort(i << 1) & 0xFFFF);
                }
            }
            case INT -> {
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    out[i] = base + (d.getInt(i << 2) & 0xFFFF_FFFFL);
                }
            }
            case DICTIONARY -> {
                long[] dict = page.dictionary();
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    out[i] = dict[d.get(i) & 0xFF];
                }
            }
            case LONG -> {
                for (int j = 0; j < n; j++) {
                    int i = sel[j];
                    out[i] = d.getLong(i << 3);
                }
            }
        }
    }
}

