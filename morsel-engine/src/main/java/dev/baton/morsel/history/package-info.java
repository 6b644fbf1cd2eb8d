/**
 * Baton's logs read by the engine: history folded per site ({@link dev.baton.morsel.history.HistoryLog}), replay
 * of dangling sites ({@link dev.baton.morsel.history.Replay}), statistics, and the outbox of unmatched results.
 * What {@code baton history}, {@code baton replay} and {@code baton outbox} print.
 */
package dev.baton.morsel.history;
