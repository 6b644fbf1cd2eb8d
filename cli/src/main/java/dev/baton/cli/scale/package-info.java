/**
 * The phases of {@code baton soak scale} (issue 27), one class each: {@link dev.baton.cli.scale.PendingPhase},
 * {@link dev.baton.cli.scale.QueuesPhase}, {@link dev.baton.cli.scale.ConsumersPhase} and
 * {@link dev.baton.cli.scale.StallPhase}. Each runs on a {@link dev.baton.testkit.soak.ScaleStage} of its
 * own, prints its figures and ends with the client's count and the invariant checker's verdict through
 * {@code PhaseRun}. The command itself (options, the order of phases, the summary) is
 * {@code dev.baton.cli.ScaleCommand}; what is not particular to the command lives in testkit's
 * {@code dev.baton.testkit.soak}.
 */
package dev.baton.cli.scale;
