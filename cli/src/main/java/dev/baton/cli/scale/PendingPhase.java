package dev.baton.cli.scale;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.WorkerSpec;
import dev.baton.testkit.soak.HeapProbe;
import dev.baton.testkit.soak.Pacer;
import dev.baton.testkit.soak.ScaleCurve;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;

/**
 * {@code pending}: {@code activities} dispatched at {@code rate} to a queue nobody serves; the streams
 * app's heap after GC, RSS and RocksDB state dir sampled every {@code sampleEverySeconds} as the sites
 * pile up; then {@code drainWorkers} worker processes start and the backlog drains, watched for at
 * most {@code drainTimeoutSeconds} (what is left then is backlog, not a failure).
 */
public final class PendingPhase {

    private static final String QUEUE = "scale-pending";

    private final PhaseSettings settings;
    private final PrintStream out;
    private final int activities;
    private final int rate;
    private final int sampleEverySeconds;
    private final int drainWorkers;
    private final int drainTimeoutSeconds;

    public PendingPhase(PhaseSettings settings, int activities, int rate, int sampleEverySeconds, int drainWorkers, int drainTimeoutSeconds) {
        this.settings = settings;
        this.out = settings.out();
        this.activities = activities;
        this.rate = rate;
        this.sampleEverySeconds = sampleEverySeconds;
        this.drainWorkers = drainWorkers;
        this.drainTimeoutSeconds = drainTimeoutSeconds;
    }

    /** Runs the phase; whether the client's count and the invariants hold. */
    public boolean run() throws Exception {
        ScaleTally tally = new ScaleTally(activities);
        ScaleCurve curve = new ScaleCurve("sites", "state dir");
        List<BatonProcess> workers = new ArrayList<>();
        try (ScaleStage stage = settings.stage(List.of(QUEUE), settings.partitions());
             DispatchClient client = DispatchClient.create(stage.clientConfig("scale-pending"),
                     o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
            out.printf("pending  %d activities at %d/s to queue %s, served by nobody; streams app -Xmx%s, pid %d%n", activities, rate, QUEUE,
                    settings.streamsHeap(), stage.streamsApp().pid());
            long start = System.nanoTime();
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            Runnable sample = () -> sample(stage, tally, curve, start);
            sampler.scheduleWithFixedDelay(sample, sampleEverySeconds, sampleEverySeconds, TimeUnit.SECONDS);
            try {
                dispatchAll(client, tally, start);
                awaitIntake(stage, start);
                long serving = startWorkers(stage, workers);
                double drainSeconds = drain(tally, serving);
                int drained = tally.answered();
                sample.run();
                sampler.shutdownNow();

                out.println("pending  curve (streams app; heap after a full GC through jcmd, state dir = its RocksDB directory)");
                curve.lines(settings.streamsHeap()).forEach(l -> out.println("  " + l));
                out.printf(Locale.ROOT, "pending  drain: %d of %d answered in %.1f s by %d workers (%.0f/s)%s%n", drained, activities, drainSeconds,
                        drainWorkers, drained / drainSeconds, drained < activities ? "; bounded drain, the rest still pending" : "");
                out.printf("pending  broker log dir %s after the drain (apparent size: Kafka preallocates index files)%n",
                        ScaleCurve.mib(HeapProbe.directoryBytes(stage.brokerDataDir())));
                return new PhaseRun("pending", settings, stage, tally).verdict(drained < activities, workers);
            } finally {
                sampler.shutdownNow();
                workers.forEach(BatonProcess::close);
            }
        }
    }

    private void sample(ScaleStage stage, ScaleTally tally, ScaleCurve curve, long start) {
        long pid = stage.streamsApp().pid();
        ScaleCurve.Sample s = new ScaleCurve.Sample((System.nanoTime() - start) / 1e9, tally.sent(), stage.dispatchesConsumed(),
                HeapProbe.heapAfterGc(pid), HeapProbe.residentBytes(pid), HeapProbe.directoryBytes(stage.stateDir()));
        curve.add(s);
        out.printf(Locale.ROOT, "pending  %7.1f s  dispatched %d, sites %d, answered %d, heap after GC %.1f MiB, RSS %.1f MiB, "
                + "state dir %.1f MiB%n", s.seconds(), s.dispatched(), s.count(), tally.answered(), s.heapBytes() / 1048576.0,
                s.rssBytes() / 1048576.0, s.dirBytes() / 1048576.0);
    }

    /** Hands every activity to the client at the rate, without waiting for answers (there is nobody to answer yet). */
    private void dispatchAll(DispatchClient client, ScaleTally tally, long start) throws InterruptedException {
        Pacer pacer = new Pacer(start, rate);
        AtomicInteger sendErrors = new AtomicInteger();
        for (int i = 0; i < activities; i++) {
            pacer.await(i);
            int n = i;
            tally.sent(n);
            client.send(PhaseRun.request(n, QUEUE)).whenComplete((id, e) -> {
                if (e != null) {
                    sendErrors.incrementAndGet();
                } else {
                    tally.named(n, id);
                }
            });
        }
        double dispatchSeconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "pending  all %d handed to the client in %.1f s (%.0f/s), %d send errors%n", activities, dispatchSeconds,
                activities / dispatchSeconds, sendErrors.get());
    }

    /** Waits until the streams app has taken in every site, or the phase's patience runs out. */
    private void awaitIntake(ScaleStage stage, long start) throws InterruptedException {
        long deadline = System.nanoTime() + settings.patience().toNanos();
        while (stage.dispatchesConsumed() < activities && System.nanoTime() < deadline) {
            TimeUnit.SECONDS.sleep(1); // polling the streams app's committed offsets
        }
        double takenSeconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "pending  streams app has taken in %d sites after %.1f s%n", stage.dispatchesConsumed(), takenSeconds);
    }

    /** Starts the workers on the queue nobody served; returns when they all serve it, as a {@link System#nanoTime()}. */
    private long startWorkers(ScaleStage stage, List<BatonProcess> workers) {
        long drainStart = System.nanoTime();
        for (int w = 1; w <= drainWorkers; w++) {
            workers.add(BatonProcess.worker(stage.bootstrapServers(), "scale-drain-" + w, WorkerSpec.of(QUEUE), 1_000));
        }
        long serving = System.nanoTime();
        out.printf(Locale.ROOT, "pending  %d worker processes serving after %.1f s; draining for at most %d s%n", drainWorkers,
                (serving - drainStart) / 1e9, drainTimeoutSeconds);
        return serving;
    }

    /** Watches the backlog drain until all is answered or the drain's time is up; a line every 10 s; returns the seconds watched. */
    private double drain(ScaleTally tally, long serving) throws InterruptedException {
        long drainDeadline = serving + TimeUnit.SECONDS.toNanos(drainTimeoutSeconds);
        long nextReport = serving + TimeUnit.SECONDS.toNanos(10);
        while (tally.answered() < activities && System.nanoTime() < drainDeadline) {
            TimeUnit.MILLISECONDS.sleep(200); // polling the tally's count; a progress line every 10 s
            if (System.nanoTime() >= nextReport) {
                out.printf(Locale.ROOT, "pending  drain %6.1f s  answered %d (%.0f/s)%n", (System.nanoTime() - serving) / 1e9,
                        tally.answered(), tally.answered() / ((System.nanoTime() - serving) / 1e9));
                nextReport += TimeUnit.SECONDS.toNanos(10);
            }
        }
        return (System.nanoTime() - serving) / 1e9;
    }
}
