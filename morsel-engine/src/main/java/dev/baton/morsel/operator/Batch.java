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
    private final NarrowColumn[] narrow;
    /** Whether {@code narrow[c]} holds this page's values. */
    private final boolean[] loaded;
    /** Source columns widened for every row of this page, once each ({@code null}: not yet). */
    private final long[][] wide;
    private final boolean[] widened;
    private long[][] computed;
    private long[][] scratch;
    private int[] selection;
    private int selected;
    /** Whether every row is selected and {@link #selection} not yet written for this page: filled on first read. */
    private boolean everyRow;
    private int rows;
    private int page = -1;

    Batch(PageSource source, int computedColumns) {
        this.source = source;
        this.pages = new ColumnPage[source.columns().size()];
        this.narrow = new NarrowColumn[pages.length];
        this.loaded = new boolean[pages.length];
        this.wide = new long[pages.length][];
        this.widened = new boolean[pages.length];
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
        selected = rows;
        everyRow = true;
        Arrays.fill(pages, null);
        Arrays.fill(loaded, false);
        Arrays.fill(widened, false);
    }

    public int page() {
        return page;
    }

    public int rows() {
        return rows;
    }

    /** Rows alive, in ascending order: {@code selection()[0 .. selected())}. */
    public int[] selection() {
        if (everyRow) {
            for (int i = 0; i < rows; i++) {
                selection[i] = i;
            }
            everyRow = false;
        }
        return selection;
    }

    /**
     * Whether every row of the page is still selected and the selection vector not yet written: a
     * filter then reads its column row by row and writes the rows it keeps ({@link #keep}), without
     * first filling and then reading an identity selection (Q6's first filter sees every row).
     */
    boolean everyRow() {
        return everyRow;
    }

    /** The selection vector to write rows into, not filled: for a filter that keeps rows of a page whose {@link #everyRow()} holds. */
    int[] keep() {
        everyRow = false;
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

    /** Whether so few rows are alive (under 1 in 16) that reading them in place beats copying a page to the heap. */
    public boolean fewRows() {
        return selected < rows >> 4;
    }

    void select(int count) {
        everyRow = false;
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

    /** Source column {@code c} of this page copied into a heap array of its stored width, once per page. */
    NarrowColumn narrow(int c) {
        NarrowColumn v = narrow[c];
        if (v == null) {
            v = narrow[c] = new NarrowColumn();
        }
        if (!loaded[c]) {
            v.load(page(c));
            loaded[c] = true;
        }
        return v;
    }

    /** Source column {@code c} widened for every row of this page, once per page however many expressions read it. */
    long[] wide(int c) {
        long[] v = wide[c];
        if (v == null || v.length < rows) {
            v = wide[c] = new long[Math.max(rows, selection.length)];
        }
        if (!widened[c]) {
            narrow(c).copyTo(v, rows);
            widened[c] = true;
        }
        return v;
    }

    /**
     * The row-indexed values of {@code e}: a computed column's own vector, a source column's widened
     * page when most rows are alive, else {@code into} after evaluating {@code e} there.
     */
    long[] vector(Expr e, long[] into, int depth) {
        if (e instanceof ColumnRef c) {
            if (!c.source()) {
                return computed(c.index());
            }
            if (computeAllRows()) {
                return wide(c.index());
            }
        }
        e.eval(this, into, depth);
        return into;
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
