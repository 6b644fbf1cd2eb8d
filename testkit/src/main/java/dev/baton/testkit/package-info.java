/**
 * Test against Baton: {@link dev.baton.testkit.LocalCluster} runs the broker, the streams app, workers and dispatch
 * clients in one JVM; {@link dev.baton.testkit.InvariantChecker} checks the contract's invariants over history and
 * results; fault tools cut links ({@link dev.baton.testkit.CuttableLink}), kill and restart processes
 * ({@link dev.baton.testkit.BatonProcess}) and schedule faults ({@link dev.baton.testkit.FaultSchedule}).
 * The only published module besides the command that depends on the embedded broker: take it at test scope.
 */
package dev.baton.testkit;
