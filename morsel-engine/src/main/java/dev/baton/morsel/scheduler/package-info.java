/**
 * The work-stealing scheduler: pipelines of a {@link dev.baton.morsel.scheduler.PipelineKind} run in
 * waves with barriers; a probe pipeline waits for its builds; one failed task cancels its siblings.
 */
package dev.baton.morsel.scheduler;
