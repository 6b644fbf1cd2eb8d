package dev.baton.worker.internals;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each deferred action once its deferral has passed, no sooner, and about {@link #SWEEP} later at most,
 * on one thread of its own. Thread-safe: any thread may {@link #defer}.
 *
 * <p>Why not a {@code ScheduledExecutorService}: every deferral has the same length, so the order they
 * are made in is the order they fall due, and a queue in that order needs no heap; and the executor woke
 * its thread once per task, tens of thousands of times a second at the worker's saturation, mostly to
 * find a lease its run's completion had already settled. This thread sleeps at least {@link #SWEEP}
 * at a time and then runs every action that is due: at most one wake-up per sweep while actions come
 * in, none while nothing is deferred.
 */
final class LeaseDeferrals implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseDeferrals.class);
    /** How late past its deferral an action may run, so that one wake-up runs many. */
    static final Duration SWEEP = Duration.ofMillis(5);

    private record Deferred(long dueNanos, Runnable action) {
    }

    private final long deferralNanos;
    private final ConcurrentLinkedQueue<Deferred> queue = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    /** The thread parks without a deadline only while this is set; {@link #defer} then wakes it. */
    private volatile boolean idle;
    private volatile boolean closed;

    LeaseDeferrals(Duration deferral, String owner) {
        this.deferralNanos = deferral.toNanos();
        this.thread = new Thread(this::run, "baton-lease-deferral " + owner);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code action} on this object's thread once the deferral has passed. */
    void defer(Runnable action) {
        queue.add(new Deferred(System.nanoTime() + deferralNanos, action));
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        long sweepNanos = SWEEP.toNanos();
        while (!closed) {
            Deferred head = queue.peek();
            if (head == null) {
                idle = true;
                if (queue.peek() == null && !closed) { // read after the flag is set: a defer() before it is seen here
                    LockSupport.park(this);
                }
                idle = false;
                continue;
            }
            long now = System.nanoTime();
            long wait = head.dueNanos() - now;
            if (wait > 0) {
                LockSupport.parkNanos(this, Math.max(wait, sweepNanos));
                continue;
            }
            for (Deferred d = queue.peek(); d != null && d.dueNanos() - now <= 0; d = queue.peek()) {
                queue.poll();
                runQuietly(d.action());
            }
        }
    }

    private static void runQuietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("a deferred lease was not sent ({}); its batch is read again once its acknowledgement is overdue", e.toString());
        }
    }

    /** Stops the thread; actions not run yet are dropped (as the executor's {@code shutdownNow} dropped them). */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
