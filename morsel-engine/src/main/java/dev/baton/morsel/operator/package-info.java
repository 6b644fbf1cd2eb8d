/**
 * Composable operators over page columns, read in their stored (narrow) encodings: a
 * {@link dev.baton.morsel.operator.ScanPipeline} scans a page source, runs
 * {@link dev.baton.morsel.operator.Stage}s (range filters, projections of
 * {@link dev.baton.morsel.operator.Expr}essions, hash-join probes) and ends in a
 * {@link dev.baton.morsel.operator.Sink} (a hash aggregate, a hash-join build). Aggregates merge
 * through a local hash exchange; {@link dev.baton.morsel.operator.SortLimit} orders and cuts the
 * answer. Queries are assembled from these; the scheduler runs the pipelines by kind.
 */
package dev.baton.morsel.operator;
