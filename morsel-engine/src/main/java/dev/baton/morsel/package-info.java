/**
 * The morsel engine: parallel scan pipelines over morsels (page ranges of columnar files, offset ranges of topic
 * partitions), run by a work-stealing scheduler with barriers, with a hash exchange. Subpackages: {@code morsel}
 * (partitioning), {@code scheduler}, {@code operator}, {@code exchange}, {@code data} (page files), {@code kafka}
 * (topics as pages), {@code history} (replay and queries over Baton's logs), {@code node} (the engine as a Baton worker).
 */
package dev.baton.morsel;
