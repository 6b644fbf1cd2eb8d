/**
 * Baton's events on the wire: the Confluent-format serde ({@link dev.baton.schemas.EventSerde}), site keys,
 * completion tokens, the reason vocabulary and dead letters. The generated Avro classes live in
 * {@code dev.baton.events}; this package is where they are encoded and decoded.
 */
package dev.baton.schemas;
