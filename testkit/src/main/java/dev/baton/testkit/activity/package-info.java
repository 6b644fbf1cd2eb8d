/**
 * Unit-testing a handler without Kafka: {@link dev.baton.testkit.activity.TestActivityContext} is an
 * {@code ActivityContext} that records heartbeats, hands the handler a checkpoint to resume from, and
 * records what an async completion reported.
 */
package dev.baton.testkit.activity;
