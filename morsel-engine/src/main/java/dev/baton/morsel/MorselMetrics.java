package dev.baton.morsel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.morsel.morsel.Morsel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The engine's meters: {@code baton_morsel_workers_active}, {@code baton_morsel_throughput_rows_per_second}
 * (rows of the last completed query over its duration), and counters of morsels and rows.
 */
public final class MorselMetrics implements MeterBinder {

    private final AtomicInteger active = new AtomicInteger();
    private final AtomicLong lastRowsPerSecond = new AtomicLong();
    private Counter morsels;
    private Counter rows;

    public MorselMetrics(MeterRegistry registry) {
        bindTo(registry);
    }

    public static MorselMetrics noop() {
        return new MorselMetrics(new SimpleMeterRegistry());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("baton_morsel_workers_active", active, AtomicInteger::get)
                .description("Morsel workers running a pipeline now").register(registry);
        Gauge.builder("baton_morsel_throughput_rows_per_second", lastRowsPerSecond, AtomicLong::get)
                .description("Rows per second of the last completed query").register(registry);
        morsels = Counter.builder("baton_morsel_morsels").description("Morsels processed").register(registry);
        rows = Counter.builder("baton_morsel_rows").description("Rows scanned by morsel tasks").register(registry);
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

    public void queryDone(long rowCount, long nanos) {
        lastRowsPerSecond.set(nanos <= 0 ? 0 : rowCount * 1_000_000_000L / nanos);
    }
}
