/**
 * Finding and aborting transactions Kafka left hanging on a partition (open while their coordinator
 * has closed them), where aborting loses nothing; the operator's command where it might.
 */
package dev.baton.streams.recovery;
