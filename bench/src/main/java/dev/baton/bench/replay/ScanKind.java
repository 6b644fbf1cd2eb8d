package dev.baton.bench.replay;

/** What is timed on the history: the raw consumer (the limit), replay's scan, and {@code history stats}. */
enum ScanKind {
    /** Polls and drops: one tuned consumer per thread, partitions dealt largest first. */
    RAW("raw consumer"),
    /**
     * The scan's own reader under a query that only counts records by partition ({@code ScanProbe.countByPartition}):
     * fetches, record walk, morsels and the fold, no decode. What the history queries below pay before their own work,
     * so their distance from it is the query's cost and their distance from the raw consumer's is both.
     */
    READER("scan reader"),
    /**
     * Replay's sites query scoped to a time no record is in ({@link ScanProbe#NO_RECORD}): the reader, the projected
     * decode with its strings as replay's query makes them, and the scope's filter, which then drops every row. What the
     * sites query pays before it aggregates anything, so its distance from the raw consumer is what no aggregation
     * strategy can win back.
     */
    DECODE("scan decode"),
    /**
     * {@code HistoryLog.siteCount}: {@code baton replay}'s sites query over history, its rows left keyed by
     * ids as replay reads them (replay runs it beside the answers query over results).
     */
    REPLAY("replay scan"),
    /** {@code HistoryStats.compute} by outcome: history folded per site, then results read. */
    STATS("history stats");

    final String label;

    ScanKind(String label) {
        this.label = label;
    }
}
