/**
 * The streams app: {@link dev.baton.streams.BatonStreamsApp} owns the site state machine (DESIGN.md §4)
 * as a Kafka Streams application over {@code baton.dispatch} and {@code baton.worker-events}, with the
 * site state in RocksDB and every decision a durable event.
 */
package dev.baton.streams;
