/**
 * The worker runtime's machinery, not its API: per-queue runners, leases (in a transaction or plain),
 * slots, executions and their heartbeats, the control listener, and the worker's registration.
 */
package dev.baton.worker.internals;
