package dev.baton.worker;

/**
 * How a worker records that it took a task.
 *
 * <ul>
 *   <li>{@link #TRANSACTIONAL} (the default): each poll batch's {@code LEASED} events and its offsets
 *       commit in one transaction, and the handlers start once it has committed. A task is leased by
 *       one worker even across rebalances; the transaction is on every activity's path (a few ms).</li>
 *   <li>{@link #PLAIN}: for a streams app running at-least-once. The handler starts as soon as the
 *       task is read; the {@code LEASED} event goes out on the worker's event producer beside it (in
 *       order with the run's later reports), and the batch's offsets are committed once its leases are
 *       acknowledged. A worker that dies before that lets another worker run the task again; the token
 *       decides which run counts (one outcome either way), and the other run's result is refused or
 *       relayed to the outbox like any late one.</li>
 * </ul>
 */
public enum LeaseMode { TRANSACTIONAL, PLAIN }
