package dev.baton.streams.processor;

/**
 * How far one task has read its worker-events partition, in the streams app's own time.
 *
 * <p>A heartbeat or timeout deadline means "no worker report came in time", which only the
 * worker-events input can tell: while the task is behind on it (after a restart, a failover, in a
 * burst, or while the thread stalls), the report that answers a deadline may be written but unread.
 * So when such a deadline has passed by the wall clock, the task writes a clock tick, stamped with
 * its wall clock, to its own worker-events partition, and lets the deadline fire only once it reads
 * that tick back: every report appended before the tick has then been read. The deadline fires one
 * round trip late (a commit and a fetch), and never because the task was slow.
 *
 * <p>A tick forged by a worker cannot make a deadline fire early: deadlines still wait for the wall
 * clock, a forged tick can only end the wait for reports. One instance per processor, so a restarted
 * task starts having read nothing and waits for its own first tick.
 */
final class ReportClock {

    /** A tick not read back within this long (its transaction aborted, say) is written again. */
    static final long RESEND_AFTER_MS = 1_000;

    private long readMillis = Long.MIN_VALUE;
    private long inFlightSinceMillis = Long.MIN_VALUE;

    /** Every report written before this instant has been read. */
    long readMillis() {
        return readMillis;
    }

    /** A tick stamped {@code tickMillis} was read back. */
    void tickRead(long tickMillis) {
        readMillis = Math.max(readMillis, tickMillis);
        if (tickMillis >= inFlightSinceMillis) {
            inFlightSinceMillis = Long.MIN_VALUE;
        }
    }

    /** Whether to write a tick now: none is on its way, or the last one is overdue. */
    boolean shouldTick(long nowMillis) {
        return inFlightSinceMillis == Long.MIN_VALUE || nowMillis - inFlightSinceMillis >= RESEND_AFTER_MS;
    }

    void tickSent(long nowMillis) {
        inFlightSinceMillis = nowMillis;
    }
}
