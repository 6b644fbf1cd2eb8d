package dev.baton.streams.processor;

import java.time.Duration;

/**
 * Tells an at-least-once processor that its JVM was paused (a {@code kill -STOP}, a frozen VM, a stop-the-world pause)
 * for long enough that the instance's group session may have lapsed, so that another instance may own its tasks now.
 *
 * <p>Under exactly-once such a zombie is fenced: its transaction cannot commit. Under at-least-once nothing fences it:
 * thawed, a stream thread goes on with the records it had fetched until its next poll or commit finds it out of the group,
 * and every step it takes meanwhile writes rows older than the new owner's into the {@code sites} changelog. The next
 * restore of that partition (a standby, a restart, a migration) then brings back a site as it was before it resolved:
 * a takeover of it answers a caller that was answered {@code completed} a second time, {@code superseded:} (h/adv23x).
 *
 * <p>A daemon thread ticks every {@value #TICK_MS} ms; a gap between two ticks longer than the threshold is a pause of
 * the whole JVM (the thread sleeps, it does not work). A processor asks {@link #pausedSince(long)} before it writes a
 * step, and the step is not written when the JVM went through such a pause since the processor last checked. Reading
 * the clock in the asking thread too covers the moments after a thaw before the ticker has run.
 */
public final class PauseGuard implements AutoCloseable {

    /** Never trips: exactly-once (fenced anyway) and topology tests. */
    public static final PauseGuard NONE = new PauseGuard();

    public static final long TICK_MS = 100;
    private static final long TICK_NANOS = Duration.ofMillis(TICK_MS).toNanos();
    private static final long NONE_YET = Long.MIN_VALUE;

    private final long thresholdNanos;
    private final Thread ticker;
    private volatile long lastTickNanos = System.nanoTime();
    private volatile long lastPauseBeganNanos = NONE_YET;
    private volatile boolean closed;

    private PauseGuard() {
        this.thresholdNanos = Long.MAX_VALUE;
        this.ticker = null;
    }

    private PauseGuard(Duration threshold) {
        this.thresholdNanos = threshold.toNanos();
        this.ticker = new Thread(this::tick, "baton-pause-guard");
        ticker.setDaemon(true);
    }

    /** A guard that takes a gap of more than {@code threshold} for a pause; its ticker runs until {@link #close()}. */
    public static PauseGuard start(Duration threshold) {
        if (threshold.toMillis() < 2 * TICK_MS) {
            throw new IllegalArgumentException("a pause threshold must be at least " + 2 * TICK_MS + " ms, was " + threshold.toMillis());
        }
        PauseGuard guard = new PauseGuard(threshold);
        guard.ticker.start();
        return guard;
    }

    public Duration threshold() {
        return Duration.ofNanos(thresholdNanos);
    }

    private void tick() {
        while (!closed) {
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            long last = lastTickNanos;
            if (now - last > thresholdNanos) {
                lastPauseBeganNanos = last;
            }
            lastTickNanos = now;
        }
    }

    /**
     * Whether the JVM went through a pause longer than the threshold that may have begun after {@code sinceNanos} (a
     * {@link System#nanoTime()}), or is coming out of one now. A pause began at most a tick (and the sleep's overshoot)
     * after the last tick before it: the answer errs on the side of a pause.
     */
    public boolean pausedSince(long sinceNanos) {
        if (ticker == null) {
            return false;
        }
        long now = System.nanoTime();
        long last = lastTickNanos;
        long began = now - last > thresholdNanos ? last : lastPauseBeganNanos;
        return began != NONE_YET && began + 2 * TICK_NANOS - sinceNanos >= 0;
    }

    @Override
    public void close() {
        closed = true;
        if (ticker != null) {
            ticker.interrupt();
        }
    }
}
