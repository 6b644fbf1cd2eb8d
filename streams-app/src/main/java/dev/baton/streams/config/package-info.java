/**
 * The streams app's configuration: its keys and defaults, the commit pacing, per-queue timeouts, and the bounded RocksDB settings. It uses nothing else of the
 * streams app: the processors read it, never the other way round.
 */
package dev.baton.streams.config;
