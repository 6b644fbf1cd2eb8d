/** The work-stealing scheduler: pipelines run in waves with barriers; one failed task cancels its siblings. */
package dev.baton.morsel.scheduler;
