/**
 * The streams app's configuration: its keys and defaults, the latency and throughput profiles, the
 * commit pacing, per-queue timeouts, the bounded RocksDB settings, and the handler that dead-letters
 * a record whose processing throws instead of stopping the stream thread.
 */
package dev.baton.streams.config;
