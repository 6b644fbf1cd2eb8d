/**
 * The worker SDK: implement {@link dev.baton.worker.ActivityHandler} (bytes) or
 * {@link dev.baton.worker.TypedActivityHandler} (typed input and output, read and written by payload converters), start
 * a {@link dev.baton.worker.Worker} with {@link dev.baton.worker.WorkerOptions}; throw {@link dev.baton.worker.RetryableActivityException} or
 * {@link dev.baton.worker.TerminalActivityException} (optionally with a failure type and details) to say how a
 * failure should be treated. A handler resumes from {@link dev.baton.worker.ActivityContext#lastHeartbeatDetails()}
 * and may hand its generation off ({@link dev.baton.worker.ActivityContext#completeLater()}) to be completed by
 * another thread or process ({@link dev.baton.worker.ActivityCompletionClient}). The poll and lease
 * loops are in {@code internals} and may change without notice.
 */
package dev.baton.worker;
