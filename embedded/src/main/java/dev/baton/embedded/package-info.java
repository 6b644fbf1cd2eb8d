/**
 * A real single-node KRaft broker in-process ({@link dev.baton.embedded.EmbeddedKafka}) and its JUnit 5 extension.
 * For tests, the demo and the testkit only: no library module may depend on it.
 */
package dev.baton.embedded;
