package dev.baton.bench.replay;

/** What is timed on the history: the raw consumer (the limit), replay's scan, and {@code history stats}. */
enum ScanKind {
    /** Polls and drops: one tuned consumer per thread, partitions dealt largest first. */
    RAW("raw consumer"),
    /** {@code HistoryLog.sites}: what {@code baton replay} scans before it reads results and the changelog. */
    REPLAY("replay scan"),
    /** {@code HistoryStats.compute} by outcome: history folded per site, then results read. */
    STATS("history stats");

    final String label;

    ScanKind(String label) {
        this.label = label;
    }
}
