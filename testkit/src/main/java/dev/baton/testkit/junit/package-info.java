/**
 * JUnit 5 support for testing against Baton: {@link dev.baton.testkit.junit.BatonExtension} gives a test
 * class a running Baton (embedded broker, streams app, a worker with the handlers the test registers,
 * a {@code DispatchClient} and an {@code ActivityCompletionClient}).
 */
package dev.baton.testkit.junit;
