package dev.baton.morsel.morsel;

/** A half-open range of pages {@code [startPage, endPage)} processed by one task, with its preferred NUMA node. */
public record Morsel(int id, int startPage, int endPage, int preferredNumaNode) {

    public Morsel {
        if (startPage < 0 || endPage <= startPage) {
            throw new IllegalArgumentException("a morsel needs 0 <= startPage < endPage, was [" + startPage + ", " + endPage + ")");
        }
    }

    public int pages() {
        return endPage - startPage;
    }
}
