package dev.baton.morsel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.morsel.morsel.Morsel;
import io.micrometer.core.instrument.Counter;
import dev.baton.metrics.BatonMetric;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The engine's meters: {@code baton_morsel_workers_active}, {@code baton_morsel_throughput_rows_per_second}
 * (rows of the last completed query over its duration), and counters of morsels, rows and partial
 * groups spilled from a hot exchange partition.
 */
public final class MorselMetrics implements MeterBinder {

    private final AtomicInteger active = new AtomicInteger();
    private final AtomicLong lastRowsPerSecond = new AtomicLong();
    private Counter morsels;
    private Counter rows;
    private Counter spilled;

    public MorselMetrics(MeterRegistry registry) {
        bindTo(registry);
    }

    public static MorselMetrics noop() {
        return new MorselMetrics(new SimpleMeterRegistry());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        BatonMetric.MORSEL_WORKERS_ACTIVE.gauge(registry, active, AtomicInteger::get);
        BatonMetric.MORSEL_THROUGHPUT.gauge(registry, lastRowsPerSecond, AtomicLong::get);
        morsels = BatonMetric.MORSEL_MORSELS.counter(registry);
        rows = BatonMetric.MORSEL_ROWS.counter(registry);
        spilled = BatonMetric.MORSEL_EXCHANGE_SPILLED.counter(registry);
    }

    public void workerStarted() {
        active.incrementAndGet();
    }

    public void workerStopped() {
        active.decrementAndGet();
    }

    public void morselDone(Morsel m) {
        morsels.increment();
    }

    public void rowsScanned(long n) {
        rows.increment(n);
    }

    public void exchangeSpilled(long groups) {
        spilled.increment(groups);
    }

    public void queryDone(long rowCount, long nanos) {
        lastRowsPerSecond.set(nanos <= 0 ? 0 : rowCount * 1_000_000_000L / nanos);
    }
}
