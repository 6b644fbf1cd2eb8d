package dev.baton.bench.replay;

/** What is timed on the history: the raw consumer (the limit), replay's scan, and {@code history stats}. */
enum ScanKind {
    /** Polls and drops: one tuned consumer per thread, partitions dealt largest first. */
    RAW("raw consumer"),
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
