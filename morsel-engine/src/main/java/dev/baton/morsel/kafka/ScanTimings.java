package dev.baton.morsel.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a command's time went: named phases, each with its start and length, for a breakdown a
 * user asks for ({@code baton replay --timings}). Phases may overlap (scans run at once) and nest.
 * The {@link #off()} instance records nothing and costs a branch.
 *
 * <p>Thread-safe.
 */
public final class ScanTimings {

    /** One phase: its name, when it started (nanos since the origin) and how long it took. */
    public record Phase(String name, long startNanos, long nanos) {
    }

    private static final ScanTimings OFF = new ScanTimings(false, 0);

    private final boolean on;
    private final long origin;
    private final List<Phase> phases = new ArrayList<>();

    private ScanTimings(boolean on, long origin) {
        this.on = on;
        this.origin = origin;
    }

    /** Records nothing. */
    public static ScanTimings off() {
        return OFF;
    }

    /** Records phases, their starts counted from {@code originNanos} (a {@link System#nanoTime()} reading). */
    public static ScanTimings from(long originNanos) {
        return new ScanTimings(true, originNanos);
    }

    /** The {@link System#nanoTime()} reading phases are counted from. */
    public long originNanos() {
        return origin;
    }

    public boolean on() {
        return on;
    }

    /** Records the phase that started at {@code startNanos} (a {@link System#nanoTime()} reading) and ends now. */
    public void done(String name, long startNanos) {
        if (on) {
            long now = System.nanoTime();
            synchronized (phases) {
                phases.add(new Phase(name, startNanos - origin, now - startNanos));
            }
        }
    }

    /** Runs {@code work} as the phase {@code name}. */
    public <T> T time(String name, Supplier<T> work) {
        long start = System.nanoTime();
        try {
            return work.get();
        } finally {
            done(name, start);
        }
    }

    /** The phases recorded so far, in the order they ended. */
    public List<Phase> phases() {
        synchronized (phases) {
            return List.copyOf(phases);
        }
    }
}
