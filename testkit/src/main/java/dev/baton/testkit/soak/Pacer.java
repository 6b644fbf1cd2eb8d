package dev.baton.testkit.soak;

import java.util.concurrent.TimeUnit;

/** Open-loop pacing: the {@code i}-th send is due {@code i / rate} seconds after the start, however late the ones before it were. */
public final class Pacer {

    private final long startNanos;
    private final double ratePerSecond;

    public Pacer(long startNanos, double ratePerSecond) {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("rate must be > 0, was " + ratePerSecond);
        }
        this.startNanos = startNanos;
        this.ratePerSecond = ratePerSecond;
    }

    /** When send {@code i} (from 0) is due, as a {@link System#nanoTime()}. */
    public long dueNanos(long i) {
        return startNanos + (long) (i * 1e9 / ratePerSecond);
    }

    /** Waits until send {@code i} is due; returns at once when it is overdue. */
    public void await(long i) throws InterruptedException {
        long wait = dueNanos(i) - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop workload
        }
    }
}
