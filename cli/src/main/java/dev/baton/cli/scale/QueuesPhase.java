package dev.baton.cli.scale;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicIntegerArray;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.WorkerSpec;
import dev.baton.testkit.soak.Latencies;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;

/**
 * {@code queues}: {@code queueCount} queues, each with a task topic of one partition, served by
 * {@code workers} worker processes that each serve an equal share of them. First one activity to each
 * queue (the first touch, so each queue's first-use costs are seen apart), then {@code activities}
 * round-robin over the queues at {@code rate}; every activity of every queue must be answered.
 */
public final class QueuesPhase {

    private final PhaseSettings settings;
    private final PrintStream out;
    private final int queueCount;
    private final int workerCount;
    private final int activities;
    private final int rate;

    public QueuesPhase(PhaseSettings settings, int queueCount, int workerCount, int activities, int rate) {
        if (workerCount > queueCount) {
            throw new IllegalArgumentException("workers must be <= queues, was " + workerCount + " for " + queueCount);
        }
        this.settings = settings;
        this.out = settings.out();
        this.queueCount = queueCount;
        this.workerCount = workerCount;
        this.activities = activities;
        this.rate = rate;
    }

    /** Runs the phase; whether the client's count and the invariants hold. */
    public boolean run() throws Exception {
        List<String> queues = new ArrayList<>();
        for (int q = 0; q < queueCount; q++) {
            queues.add(String.format(Locale.ROOT, "scale-q-%03d", q));
        }
        ScaleTally tally = new ScaleTally(queueCount + activities);
        List<BatonProcess> workers = new ArrayList<>();
        // One partition per queue's task topic: what a queue with one worker needs; 200 x 6 would be 1,200 idle partitions.
        try (ScaleStage stage = settings.stage(queues, 1)) {
            startWorkers(stage, queues, workers);
            PhaseRun run = new PhaseRun("queues", settings, stage, tally);
            try (DispatchClient client = DispatchClient.create(stage.clientConfig("scale-queues"),
                    o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
                Latencies first = new Latencies();
                double firstSeconds = run.dispatchAndAwait(client, 0, queueCount, rate, queues::get, first, i -> { });
                out.printf(Locale.ROOT, "queues   first touch: one activity to each of %d queues, all answered after %.1f s (%d answered); "
                        + "dispatch-to-outcome %s%n", queueCount, firstSeconds, tally.answered(), first);
                roundRobin(run, client, queues);
            }
            boolean ok = run.verdict(false, workers);
            workers.forEach(BatonProcess::kill9);
            return ok;
        } finally {
            workers.forEach(BatonProcess::close);
        }
    }

    private void startWorkers(ScaleStage stage, List<String> queues, List<BatonProcess> workers) {
        long t0 = System.nanoTime();
        int per = (queueCount + workerCount - 1) / workerCount;
        for (int w = 0; w < workerCount; w++) {
            List<String> share = queues.subList(w * per, Math.min(queueCount, (w + 1) * per));
            if (share.isEmpty()) {
                continue;
            }
            long ts = System.nanoTime();
            workers.add(BatonProcess.worker(stage.bootstrapServers(), "scale-qworker-" + (w + 1), new WorkerSpec(share, List.of()), 1_000));
            out.printf(Locale.ROOT, "queues   worker scale-qworker-%d serves %d queues (%s..%s), serving after %.1f s%n", w + 1, share.size(),
                    share.get(0), share.get(share.size() - 1), (System.nanoTime() - ts) / 1e9);
        }
        out.printf(Locale.ROOT, "queues   %d queues, %d worker processes up after %.1f s%n", queueCount, workers.size(),
                (System.nanoTime() - t0) / 1e9);
    }

    /** The steady state: activities round-robin over the queues, each queue's answers counted apart. */
    private void roundRobin(PhaseRun run, DispatchClient client, List<String> queues) throws InterruptedException {
        Latencies latencies = new Latencies();
        AtomicIntegerArray answeredPerQueue = new AtomicIntegerArray(queueCount);
        double seconds = run.dispatchAndAwait(client, queueCount, activities, rate, i -> queues.get(i % queueCount), latencies,
                i -> answeredPerQueue.incrementAndGet(i % queueCount));
        int[] perQueue = new int[queueCount];
        for (int i = queueCount; i < queueCount + activities; i++) {
            perQueue[i % queueCount]++;
        }
        int queuesComplete = 0;
        for (int q = 0; q < queueCount; q++) {
            if (answeredPerQueue.get(q) == perQueue[q]) {
                queuesComplete++;
            }
        }
        out.printf(Locale.ROOT, "queues   then %d activities at %d/s round-robin: answered after %.1f s; %d of %d queues had every "
                + "activity answered; dispatch-to-outcome %s%n", activities, rate, seconds, queuesComplete, queueCount, latencies);
    }
}
