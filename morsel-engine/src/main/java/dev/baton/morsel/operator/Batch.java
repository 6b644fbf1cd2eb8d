package dev.baton.morsel.operator;

import java.util.Arrays;

import dev.baton.morsel.data.ColumnPage;
import dev.baton.morsel.data.PageSource;

/**
 * The rows of one page as they flow through a pipeline's stages on one worker: the page's column
 * pages (read in their stored encoding), a selection vector of the rows still alive, and the
 * columns stages computed. Every vector is indexed by row number within the page, so a filter that
 * narrows the selection never moves data. One batch per worker, reused page after page; not
 * thread-safe.
 */
public final class Batch {

    private final PageSource source;
    private final ColumnPage[] pages;
    private long[][] computed;
    private long[][] scratch;
    private int[] selection;
    private int selected;
    private int rows;
    private int page = -1;

    Batch(PageSource source, int computedColumns) {
        this.source = source;
        this.pages = new ColumnPage[source.columns().size()];
        this.computed = new long[computedColumns][0];
        this.scratch = new long[2][0];
        this.selection = new int[0];
    }

    /** Starts page {@code p}: every row selected, no column page fetched yet. */
    void reset(int p) {
        page = p;
        rows = source.rowsIn(p);
        if (selection.length < rows) { // sized by the largest page seen: allocation stops after the first page
            selection = new int[rows];
            computed = new long[computed.length][rows];
            scratch = new long[scratch.length][rows];
        }
        for (int i = 0; i < rows; i++) {
            selection[i] = i;
        }
        selected = rows;
        Arrays.fill(pages, null);
    }

    public int page() {
        return page;
    }

    public int rows() {
        return rows;
    }

    /** Rows alive, in ascending order: {@code selection()[0 .. selected())}. */
    public int[] selection() {
        return selection;
    }

    public int selected() {
        return selected;
    }

    /**
     * Whether expressions should be computed for every row of the page rather than through the
     * selection: when most rows are alive, a straight loop (no indirection, vectorizable) over all of
     * them is cheaper than skipping the few dead ones. Values computed for dead rows are never read.
     */
    public boolean computeAllRows() {
        return selected > rows - (rows >> 2);
    }

    void select(int count) {
        selected = count;
    }

    /** Source column {@code c} of this page, fetched once per page. */
    public ColumnPage page(int c) {
        ColumnPage p = pages[c];
        if (p == null) {
            p = pages[c] = source.column(page, c);
        }
        return p;
    }

    /** Computed column {@code c}, row-indexed. */
    public long[] computed(int c) {
        return computed[c];
    }

    /** A temporary vector for expression depth {@code depth}. */
    long[] scratch(int depth) {
        if (depth >= scratch.length) {
            long[][] more = Arrays.copyOf(scratch, depth + 1);
            for (int d = scratch.length; d <= depth; d++) {
                more[d] = new long[selection.length];
            }
            scratch = more;
        }
        return scratch[depth];
    }

}
