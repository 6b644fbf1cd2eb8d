package dev.baton.cli.scale;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.WorkerSpec;
import dev.baton.testkit.soak.HeapProbe;
import dev.baton.testkit.soak.Latencies;
import dev.baton.testkit.soak.Pacer;
import dev.baton.testkit.soak.ScaleCurve;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;

/**
 * {@code stall}: a client dispatching {@code rate} a second for 20 s, {@code stallSeconds} and 20 s
 * more, whose results listener is blocked for the middle part (a callback that hangs on the listener
 * thread), served by {@code workerCount} worker processes; this JVM's heap after GC (the client, its
 * pending futures) is sampled every 5 s. Every activity must be answered once the listener resumes.
 */
public final class StallPhase {

    private static final String QUEUE = "scale-stall";
    private static final int BEFORE_SECONDS = 20;
    private static final int AFTER_SECONDS = 20;

    private final PhaseSettings settings;
    private final PrintStream out;
    private final int stallSeconds;
    private final int rate;
    private final int workerCount;
    private final CountDownLatch never = new CountDownLatch(1);
    private final AtomicBoolean stallArmed = new AtomicBoolean();
    private final AtomicLong stallBegan = new AtomicLong();
    private final AtomicLong stallEnded = new AtomicLong();

    public StallPhase(PhaseSettings settings, int stallSeconds, int rate, int workerCount) {
        this.settings = settings;
        this.out = settings.out();
        this.stallSeconds = stallSeconds;
        this.rate = rate;
        this.workerCount = workerCount;
    }

    /** Runs the phase (once); whether the client's count and the invariants hold and the stall happened. */
    public boolean run() throws Exception {
        int total = rate * (BEFORE_SECONDS + stallSeconds + AFTER_SECONDS);
        ScaleTally tally = new ScaleTally(total);
        ScaleCurve curve = new ScaleCurve("pending futures", null);
        List<BatonProcess> workers = new ArrayList<>();
        try (ScaleStage stage = settings.stage(List.of(QUEUE), settings.partitions())) {
            for (int w = 1; w <= workerCount; w++) {
                workers.add(BatonProcess.worker(stage.bootstrapServers(), "scale-stall-worker-" + w, WorkerSpec.of(QUEUE), 1_000));
            }
            PhaseRun run = new PhaseRun("stall", settings, stage, tally);
            try (DispatchClient client = DispatchClient.create(stage.clientConfig("scale-stall"),
                    o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
                out.printf("stall    %d/s for %d s, the results listener blocked from %d s for %d s (%d activities); %d worker processes; "
                        + "client heap = this JVM's heap after System.gc()%n", rate, BEFORE_SECONDS + stallSeconds + AFTER_SECONDS, BEFORE_SECONDS,
                        stallSeconds, total, workerCount);
                dispatchThroughTheStall(run, client, tally, curve, total);
            }
            boolean ok = run.verdict(false, workers) && stallBegan.get() > 0;
            workers.forEach(BatonProcess::kill9);
            return ok;
        } finally {
            workers.forEach(BatonProcess::close);
        }
    }

    private void dispatchThroughTheStall(PhaseRun run, DispatchClient client, ScaleTally tally, ScaleCurve curve, int total)
            throws InterruptedException {
        long start = System.nanoTime();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(() -> curve.add(ownSample(start, tally, client)), 0, 5, TimeUnit.SECONDS);
        Latencies latencies = new Latencies();
        Pacer pacer = new Pacer(start, rate);
        for (int i = 0; i < total; i++) {
            pacer.await(i);
            if (i == rate * BEFORE_SECONDS) {
                stallArmed.set(true);
            }
            run.dispatch(client, i, QUEUE, latencies, stallOnce());
        }
        run.awaitAnswers(start);
        double seconds = (System.nanoTime() - start) / 1e9;
        sampler.shutdownNow();
        curve.add(ownSample(start, tally, client));
        out.println("stall    curve (this JVM: the client, its pending futures and the scale command's own tally)");
        curve.lines(Runtime.getRuntime().maxMemory() / 1048576 + "m").forEach(l -> out.println("  " + l));
        out.printf(Locale.ROOT, "stall    listener blocked %.1f s (from %.1f s); peak pending futures %d; all %d answered after %.1f s; "
                + "dispatch-to-outcome %s%n", (stallEnded.get() - stallBegan.get()) / 1e9, (stallBegan.get() - start) / 1e9,
                curve.samples().stream().mapToLong(ScaleCurve.Sample::count).max().orElse(0), tally.answered(), seconds, latencies);
    }

    private static ScaleCurve.Sample ownSample(long start, ScaleTally tally, DispatchClient client) {
        return new ScaleCurve.Sample((System.nanoTime() - start) / 1e9, tally.sent(), client.pendingCount(), HeapProbe.ownHeapAfterGc(),
                HeapProbe.residentBytes(ProcessHandle.current().pid()), -1);
    }

    /**
     * The stall: the first outcome the listener thread delivers once armed blocks that thread, so it
     * stops polling baton.results, as an application callback that hangs would make it.
     */
    private IntConsumer stallOnce() {
        return i -> {
            if (stallArmed.compareAndSet(true, false) && Thread.currentThread().getName().startsWith("baton-results-")) {
                stallBegan.set(System.nanoTime());
                try {
                    never.await(stallSeconds, TimeUnit.SECONDS); // the fault itself: a listener blocked for the stall period
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stallEnded.set(System.nanoTime());
            }
        };
    }
}
