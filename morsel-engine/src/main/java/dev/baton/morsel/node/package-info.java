/**
 * The engine across processes: an {@link dev.baton.morsel.node.EngineNode} is a Baton worker on queue {@code engine}
 * that runs a job's scans and merges as activities; {@link dev.baton.morsel.node.DistributedGroupBy} dispatches them
 * and exchanges partial aggregates through {@code baton.exchange.<job>}.
 */
package dev.baton.morsel.node;
