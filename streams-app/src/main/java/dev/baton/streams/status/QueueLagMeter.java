package dev.baton.streams.status;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.baton.metrics.BatonMetric;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code baton_queue_lag{queue}}: samples every queue's lag on its own thread at a fixed interval, so
 * a scrape never waits on the cluster. A queue's gauge appears with its first sample and keeps its
 * last value while the cluster does not answer (a failed sample is logged once until one succeeds).
 */
public final class QueueLagMeter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QueueLagMeter.class);

    private final Admin admin;
    private final QueueLag lag;
    private final MeterRegistry meters;
    private final Map<String, AtomicLong> byQueue = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-queue-lag");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean failing;

    public QueueLagMeter(Admin admin, MeterRegistry meters) {
        this.admin = admin;
        this.lag = new QueueLag(admin);
        this.meters = meters;
    }

    /** Samples now and then every {@code interval}. */
    public QueueLagMeter start(Duration interval) {
        sampler.scheduleWithFixedDelay(this::sample, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    void sample() {
        try {
            lag.read().forEach((queue, value) -> byQueue.computeIfAbsent(queue, q -> {
                AtomicLong holder = new AtomicLong();
                BatonMetric.QUEUE_LAG.gauge(meters, holder, AtomicLong::get, "queue", q);
                return holder;
            }).set(value));
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("queue lag not sampled ({}); baton_queue_lag keeps its last values until a sample succeeds", e.getMessage());
            }
            failing = true;
        }
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
