package dev.baton.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.WorkerSpec;
import dev.baton.testkit.soak.GroupWatch;
import dev.baton.testkit.soak.HeapProbe;
import dev.baton.testkit.soak.Pacer;
import dev.baton.testkit.soak.ScaleCurve;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;
import dev.baton.topics.ClientIds;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code baton soak scale}: Baton's scale limits, measured (issue 27). Each phase runs on a broker of
 * its own with one streams-app process (and worker processes where it says so), and ends with the
 * client's count of answers and the invariant checker's verdict:
 * <ul>
 *   <li>{@code pending}: N activities to a queue nobody serves; the streams app's heap after GC and
 *       its RocksDB state dir sampled as the sites pile up; then workers start and the backlog drains
 *       (bounded by {@code --drain-timeout-s});</li>
 *   <li>{@code queues}: many queues, worker processes each serving a share of them;</li>
 *   <li>{@code consumers}: many workers (in this JVM, each with its own consumer) join one queue's group
 *       one at a time and leave it one at a time, while work flows; each rebalance timed;</li>
 *   <li>{@code stall}: a client whose results listener is blocked for a minute while it keeps
 *       dispatching; its heap after GC sampled throughout.</li>
 * </ul>
 */
@Command(name = "scale", mixinStandardHelpOptions = true,
        description = "Measure Baton's scale limits: pending sites, many queues, many consumers in one group, a stalled results consumer.")
public final class ScaleCommand implements Callable<Integer> {

    /** The phases, in the order they run. */
    enum Phase { pending, queues, consumers, stall }

    @Option(names = "--phases", split = ",", defaultValue = "pending,queues,consumers,stall",
            description = "Phases to run, comma-separated (default ${DEFAULT-VALUE})")
    List<Phase> phases;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of Baton's topics (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--streams-heap", defaultValue = BatonProcess.DEFAULT_MAX_HEAP, description = "The streams app's -Xmx (default ${DEFAULT-VALUE})")
    String streamsHeap;

    @Option(names = "--pending", defaultValue = "1000000", description = "pending: activities dispatched with no worker (default ${DEFAULT-VALUE})")
    int pending;

    @Option(names = "--pending-rate", defaultValue = "2000", description = "pending: dispatches per second (default ${DEFAULT-VALUE})")
    int pendingRate;

    @Option(names = "--sample-every-s", defaultValue = "15", description = "pending: seconds between samples of heap and state dir (default ${DEFAULT-VALUE})")
    int sampleEverySeconds;

    @Option(names = "--drain-workers", defaultValue = "2", description = "pending: worker processes started to drain the backlog (default ${DEFAULT-VALUE})")
    int drainWorkers;

    @Option(names = "--drain-timeout-s", defaultValue = "600", description = "pending: stop watching the drain after this long (default ${DEFAULT-VALUE})")
    int drainTimeoutSeconds;

    @Option(names = "--queues", defaultValue = "200", description = "queues: how many (default ${DEFAULT-VALUE})")
    int queueCount;

    @Option(names = "--queue-workers", defaultValue = "4", description = "queues: worker processes, each serving an equal share of the queues (default ${DEFAULT-VALUE})")
    int queueWorkers;

    @Option(names = "--queue-activities", defaultValue = "4000", description = "queues: activities, round-robin over the queues (default ${DEFAULT-VALUE})")
    int queueActivities;

    @Option(names = "--queue-rate", defaultValue = "200", description = "queues: dispatches per second (default ${DEFAULT-VALUE})")
    int queueRate;

    @Option(names = "--consumers", defaultValue = "50", description = "consumers: workers in one group (default ${DEFAULT-VALUE})")
    int consumers;

    @Option(names = "--consumer-rate", defaultValue = "50", description = "consumers: dispatches per second while they join and leave (default ${DEFAULT-VALUE})")
    int consumerRate;

    @Option(names = "--stall-s", defaultValue = "60", description = "stall: seconds the results listener is blocked (default ${DEFAULT-VALUE})")
    int stallSeconds;

    @Option(names = "--stall-rate", defaultValue = "100", description = "stall: dispatches per second, before, during and after (default ${DEFAULT-VALUE})")
    int stallRate;

    @Option(names = "--stall-workers", defaultValue = "2", description = "stall: worker processes (default ${DEFAULT-VALUE})")
    int stallWorkers;

    @Option(names = "--timeout-minutes", defaultValue = "20", description = "Per phase: give up waiting for answers after this long (default ${DEFAULT-VALUE})")
    int timeoutMinutes;

    @Spec
    CommandSpec spec;

    private static final String ECHO = "echo";
    private static final int PROBLEM_LINES = 15;
    private static final Duration REBALANCE_PATIENCE = Duration.ofSeconds(90);
    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        check();
        long started = System.nanoTime();
        out.printf("scale  phases %s; %d cores, this JVM -Xmx%d MiB; load average %.2f%n", phases, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        List<String> verdicts = new ArrayList<>();
        boolean ok = true;
        for (Phase p : Phase.values()) {
            if (!phases.contains(p)) {
                continue;
            }
            out.printf("%n== phase %s ==%n", p);
            long t = System.nanoTime();
            boolean phaseOk = switch (p) {
                case pending -> pendingPhase();
                case queues -> queuesPhase();
                case consumers -> consumersPhase();
                case stall -> stallPhase();
            };
            verdicts.add(String.format(Locale.ROOT, "%-10s %s (%.0f s)", p, phaseOk ? "ok" : "FAIL", (System.nanoTime() - t) / 1e9));
            ok &= phaseOk;
        }
        out.printf("%nsummary%n");
        verdicts.forEach(v -> out.println("  " + v));
        out.printf("%s   %.1f s in all%n", ok ? "ok  " : "FAIL", (System.nanoTime() - started) / 1e9);
        return ok ? 0 : 1;
    }

    private void check() {
        if (phases.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--phases names no phase");
        }
        for (int v : new int[] {partitions, pending, pendingRate, sampleEverySeconds, queueCount, queueWorkers, queueActivities, queueRate,
            consumers, consumerRate, stallSeconds, stallRate, stallWorkers}) {
            if (v < 1) {
                throw new ParameterException(spec.commandLine(), "every count, rate and period must be >= 1");
            }
        }
        if (queueWorkers > queueCount) {
            throw new ParameterException(spec.commandLine(), "--queue-workers " + queueWorkers + " exceeds --queues " + queueCount);
        }
    }

    // ---------------------------------------------------------------- pending

    private boolean pendingPhase() throws Exception {
        String queue = "scale-pending";
        ScaleTally tally = new ScaleTally(pending);
        ScaleCurve curve = new ScaleCurve("sites", "state dir");
        List<BatonProcess> workers = new ArrayList<>();
        try (ScaleStage stage = ScaleStage.start(List.of(queue), partitions, partitions, streamsHeap);
             DispatchClient client = DispatchClient.create(stage.clientConfig("scale-pending"),
                     o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
            out.printf("pending  %d activities at %d/s to queue %s, served by nobody; streams app -Xmx%s, pid %d%n", pending, pendingRate, queue,
                    streamsHeap, stage.streamsApp().pid());
            long start = System.nanoTime();
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            Runnable sample = () -> {
                long pid = stage.streamsApp().pid();
                ScaleCurve.Sample s = new ScaleCurve.Sample((System.nanoTime() - start) / 1e9, tally.sent(), stage.dispatchesConsumed(),
                        HeapProbe.heapAfterGc(pid), HeapProbe.residentBytes(pid), HeapProbe.directoryBytes(stage.stateDir()));
                curve.add(s);
                out.printf(Locale.ROOT, "pending  %7.1f s  dispatched %d, sites %d, answered %d, heap after GC %.1f MiB, RSS %.1f MiB, "
                        + "state dir %.1f MiB%n", s.seconds(), s.dispatched(), s.count(), tally.answered(), s.heapBytes() / 1048576.0,
                        s.rssBytes() / 1048576.0, s.dirBytes() / 1048576.0);
            };
            sampler.scheduleWithFixedDelay(sample, sampleEverySeconds, sampleEverySeconds, TimeUnit.SECONDS);
            try {
                Pacer pacer = new Pacer(start, pendingRate);
                AtomicInteger sendErrors = new AtomicInteger();
                for (int i = 0; i < pending; i++) {
                    pacer.await(i);
                    int n = i;
                    tally.sent(n);
                    client.send(request(n, queue)).whenComplete((id, e) -> {
                        if (e != null) {
                            sendErrors.incrementAndGet();
                        } else {
                            tally.named(n, id);
                        }
                    });
                }
                double dispatchSeconds = (System.nanoTime() - start) / 1e9;
                out.printf(Locale.ROOT, "pending  all %d handed to the client in %.1f s (%.0f/s), %d send errors%n", pending, dispatchSeconds,
                        pending / dispatchSeconds, sendErrors.get());
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(timeoutMinutes);
                while (stage.dispatchesConsumed() < pending && System.nanoTime() < deadline) {
                    TimeUnit.SECONDS.sleep(1); // polling the streams app's committed offsets
                }
                double takenSeconds = (System.nanoTime() - start) / 1e9;
                out.printf(Locale.ROOT, "pending  streams app has taken in %d sites after %.1f s%n", stage.dispatchesConsumed(), takenSeconds);

                // The backlog drains: workers start on the queue nobody served.
                long drainStart = System.nanoTime();
                for (int w = 1; w <= drainWorkers; w++) {
                    workers.add(BatonProcess.worker(stage.bootstrapServers(), "scale-drain-" + w, WorkerSpec.of(queue), 1_000));
                }
                long serving = System.nanoTime();
                out.printf(Locale.ROOT, "pending  %d worker processes serving after %.1f s; draining for at most %d s%n", drainWorkers,
                        (serving - drainStart) / 1e9, drainTimeoutSeconds);
                long drainDeadline = serving + TimeUnit.SECONDS.toNanos(drainTimeoutSeconds);
                long nextReport = serving + TimeUnit.SECONDS.toNanos(10);
                while (tally.answered() < pending && System.nanoTime() < drainDeadline) {
                    TimeUnit.MILLISECONDS.sleep(200); // polling the tally's count; a progress line every 10 s
                    if (System.nanoTime() >= nextReport) {
                        out.printf(Locale.ROOT, "pending  drain %6.1f s  answered %d (%.0f/s)%n", (System.nanoTime() - serving) / 1e9,
                                tally.answered(), tally.answered() / ((System.nanoTime() - serving) / 1e9));
                        nextReport += TimeUnit.SECONDS.toNanos(10);
                    }
                }
                double drainSeconds = (System.nanoTime() - serving) / 1e9;
                int drained = tally.answered();
                sample.run();
                sampler.shutdownNow();

                out.println("pending  curve (streams app; heap after a full GC through jcmd, state dir = its RocksDB directory)");
                curve.lines(streamsHeap).forEach(l -> out.println("  " + l));
                out.printf(Locale.ROOT, "pending  drain: %d of %d answered in %.1f s by %d workers (%.0f/s)%s%n", drained, pending, drainSeconds,
                        drainWorkers, drained / drainSeconds, drained < pending ? "; bounded drain, the rest still pending" : "");
                out.printf("pending  broker log dir %s after the drain (apparent size: Kafka preallocates index files)%n", mib(HeapProbe.directoryBytes(stage.brokerDataDir())));
                return verdict("pending", stage, tally, drained < pending, workers);
            } finally {
                sampler.shutdownNow();
                workers.forEach(BatonProcess::close);
            }
        }
    }

    // ---------------------------------------------------------------- queues

    private boolean queuesPhase() throws Exception {
        List<String> queues = new ArrayList<>();
        for (int q = 0; q < queueCount; q++) {
            queues.add(String.format(Locale.ROOT, "scale-q-%03d", q));
        }
        ScaleTally tally = new ScaleTally(queueCount + queueActivities);
        List<BatonProcess> workers = new ArrayList<>();
        // One partition per queue's task topic: what a queue with one worker needs; 200 x 6 would be 1,200 idle partitions.
        try (ScaleStage stage = ScaleStage.start(queues, partitions, 1, streamsHeap)) {
            long t0 = System.nanoTime();
            int per = (queueCount + queueWorkers - 1) / queueWorkers;
            for (int w = 0; w < queueWorkers; w++) {
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
            try (DispatchClient client = DispatchClient.create(stage.clientConfig("scale-queues"),
                    o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
                // First touch: one activity per queue, so each queue's first-use costs are seen apart from the steady state.
                Latencies first = new Latencies();
                double firstSeconds = dispatchAndAwait("queues", stage, client, tally, 0, queueCount, queueRate, queues::get, first, i -> { });
                out.printf(Locale.ROOT, "queues   first touch: one activity to each of %d queues, all answered after %.1f s (%d answered); "
                        + "dispatch-to-outcome %s%n", queueCount, firstSeconds, tally.answered(), first);
                Latencies latencies = new Latencies();
                int[] perQueue = new int[queueCount];
                java.util.concurrent.atomic.AtomicIntegerArray answeredPerQueue = new java.util.concurrent.atomic.AtomicIntegerArray(queueCount);
                double seconds = dispatchAndAwait("queues", stage, client, tally, queueCount, queueActivities, queueRate,
                        i -> queues.get(i % queueCount), latencies, i -> answeredPerQueue.incrementAndGet(i % queueCount));
                for (int i = queueCount; i < queueCount + queueActivities; i++) {
                    perQueue[i % queueCount]++;
                }
                int queuesComplete = 0;
                for (int q = 0; q < queueCount; q++) {
                    if (answeredPerQueue.get(q) == perQueue[q]) {
                        queuesComplete++;
                    }
                }
                out.printf(Locale.ROOT, "queues   then %d activities at %d/s round-robin: answered after %.1f s; %d of %d queues had every "
                        + "activity answered; dispatch-to-outcome %s%n", queueActivities, queueRate, seconds, queuesComplete, queueCount, latencies);
            }
            boolean ok = verdict("queues", stage, tally, false, workers);
            workers.forEach(BatonProcess::kill9);
            return ok;
        } finally {
            workers.forEach(BatonProcess::close);
        }
    }

    // ---------------------------------------------------------------- consumers

    private boolean consumersPhase() throws Exception {
        String queue = "scale-wide";
        int taskPartitions = Math.max(consumers, partitions);
        int capacity = consumerRate * 60 * 60; // an hour of dispatches at most
        ScaleTally tally = new ScaleTally(capacity);
        List<Worker> workers = new ArrayList<>();
        try (ScaleStage stage = ScaleStage.start(List.of(queue), partitions, taskPartitions, streamsHeap);
             DispatchClient client = DispatchClient.create(stage.clientConfig("scale-consumers"),
                     o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
            out.printf("consumers  %d workers in this JVM, each with its own consumer, on group %s (%d partitions); %d dispatches/s meanwhile%n",
                    consumers, ClientIds.workerGroup(queue), taskPartitions, consumerRate);
            GroupWatch watch = new GroupWatch(stage.admin(), ClientIds.workerGroup(queue));
            Latencies latencies = new Latencies();
            AtomicBoolean dispatching = new AtomicBoolean(true);
            AtomicInteger dispatched = new AtomicInteger();
            Thread load = new Thread(() -> {
                Pacer pacer = new Pacer(System.nanoTime(), consumerRate);
                try {
                    for (int i = 0; dispatching.get() && i < capacity; i++) {
                        pacer.await(i);
                        dispatch(client, tally, i, queue, latencies, n -> { });
                        dispatched.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "scale-consumers-load");
            load.start();
            List<Long> joins = new ArrayList<>();
            List<Long> leaves = new ArrayList<>();
            boolean allStable = true;
            try {
                for (int k = 1; k <= consumers; k++) {
                    long t = System.nanoTime();
                    workers.add(Worker.start(WorkerOptions.builder().bootstrapServers(stage.bootstrapServers()).workerId("scale-consumer-" + k)
                            .queues(queue).handler(ECHO, (ctx, input) -> input).maxConcurrent(2).drainTimeout(Duration.ofSeconds(5)).build()));
                    Duration d = watch.awaitStable(k, taskPartitions, t, REBALANCE_PATIENCE);
                    allStable &= d != null;
                    joins.add(d == null ? -1 : d.toMillis());
                    if (k % 10 == 0 || k == consumers) {
                        out.printf("consumers  joined %d, answered %d of %d dispatched%n", k, tally.answered(), dispatched.get());
                    }
                }
                for (int k = consumers; k >= 2; k--) {
                    long t = System.nanoTime();
                    workers.remove(workers.size() - 1).close();
                    Duration d = watch.awaitStable(k - 1, taskPartitions, t, REBALANCE_PATIENCE);
                    allStable &= d != null;
                    leaves.add(d == null ? -1 : d.toMillis());
                    if ((k - 1) % 10 == 0) {
                        out.printf("consumers  %d left, answered %d of %d dispatched%n", consumers - k + 1, tally.answered(), dispatched.get());
                    }
                }
            } finally {
                dispatching.set(false);
                load.join();
            }
            awaitAnswers("consumers", stage, tally, System.nanoTime());
            out.printf("consumers  join k = 1..%d: group stable with k members, each assigned, after (ms): %s%n", consumers, joins);
            out.printf("consumers  leave k = %d..2 (one closes): stable with k-1 after (ms): %s%n", consumers, leaves);
            out.printf("consumers  join  %s%n", Latencies.summary(joins));
            out.printf("consumers  leave %s%n", Latencies.summary(leaves));
            out.printf("consumers  %d dispatched, %d answered; dispatch-to-outcome %s%s%n", tally.sent(), tally.answered(), latencies,
                    allStable ? "" : "; SOME REBALANCE DID NOT SETTLE within " + REBALANCE_PATIENCE.toSeconds() + " s (-1 above)");
            return verdict("consumers", stage, tally, false, List.of()) && allStable;
        } finally {
            workers.forEach(Worker::close);
        }
    }

    // ---------------------------------------------------------------- stall

    private boolean stallPhase() throws Exception {
        String queue = "scale-stall";
        int before = 20;
        int after = 20;
        int total = stallRate * (before + stallSeconds + after);
        ScaleTally tally = new ScaleTally(total);
        ScaleCurve curve = new ScaleCurve("pending futures", null);
        List<BatonProcess> workers = new ArrayList<>();
        try (ScaleStage stage = ScaleStage.start(List.of(queue), partitions, partitions, streamsHeap)) {
            for (int w = 1; w <= stallWorkers; w++) {
                workers.add(BatonProcess.worker(stage.bootstrapServers(), "scale-stall-worker-" + w, WorkerSpec.of(queue), 1_000));
            }
            CountDownLatch never = new CountDownLatch(1);
            AtomicBoolean stallArmed = new AtomicBoolean();
            AtomicLong stallBegan = new AtomicLong();
            AtomicLong stallEnded = new AtomicLong();
            try (DispatchClient client = DispatchClient.create(stage.clientConfig("scale-stall"),
                    o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
                out.printf("stall    %d/s for %d s, the results listener blocked from %d s for %d s (%d activities); %d worker processes; "
                        + "client heap = this JVM's heap after System.gc()%n", stallRate, before + stallSeconds + after, before, stallSeconds,
                        total, stallWorkers);
                long start = System.nanoTime();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleWithFixedDelay(() -> {
                    ScaleCurve.Sample s = new ScaleCurve.Sample((System.nanoTime() - start) / 1e9, tally.sent(), client.pendingCount(),
                            HeapProbe.ownHeapAfterGc(), HeapProbe.residentBytes(ProcessHandle.current().pid()), -1);
                    curve.add(s);
                }, 0, 5, TimeUnit.SECONDS);
                Latencies latencies = new Latencies();
                // The stall: the first outcome the listener thread delivers once armed blocks that thread, so
                // it stops polling baton.results, as an application callback that hangs would make it.
                IntFunction<Runnable> onAnswer = i -> () -> {
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
                Pacer pacer = new Pacer(start, stallRate);
                for (int i = 0; i < total; i++) {
                    pacer.await(i);
                    if (i == stallRate * before) {
                        stallArmed.set(true);
                    }
                    int n = i;
                    dispatch(client, tally, n, queue, latencies, k -> onAnswer.apply(k).run());
                }
                awaitAnswers("stall", stage, tally, start);
                double seconds = (System.nanoTime() - start) / 1e9;
                sampler.shutdownNow();
                curve.add(new ScaleCurve.Sample(seconds, tally.sent(), client.pendingCount(), HeapProbe.ownHeapAfterGc(),
                        HeapProbe.residentBytes(ProcessHandle.current().pid()), -1));
                out.println("stall    curve (this JVM: the client, its pending futures and the scale command's own tally)");
                curve.lines(Runtime.getRuntime().maxMemory() / 1048576 + "m").forEach(l -> out.println("  " + l));
                out.printf(Locale.ROOT, "stall    listener blocked %.1f s (from %.1f s); peak pending futures %d; all %d answered after %.1f s; "
                        + "dispatch-to-outcome %s%n", (stallEnded.get() - stallBegan.get()) / 1e9, (stallBegan.get() - start) / 1e9,
                        curve.samples().stream().mapToLong(ScaleCurve.Sample::count).max().orElse(0), tally.answered(), seconds, latencies);
            }
            boolean ok = verdict("stall", stage, tally, false, workers) && stallBegan.get() > 0;
            workers.forEach(BatonProcess::kill9);
            return ok;
        } finally {
            workers.forEach(BatonProcess::close);
        }
    }

    // ---------------------------------------------------------------- shared

    /** Dispatches activities {@code from} to {@code from + count - 1} at {@code rate} and waits for every answer; returns the seconds it all took. */
    private double dispatchAndAwait(String phase, ScaleStage stage, DispatchClient client, ScaleTally tally, int from, int count, int rate,
                                    IntFunction<String> queueOf, Latencies latencies, java.util.function.IntConsumer onAnswer)
            throws InterruptedException {
        long start = System.nanoTime();
        Pacer pacer = new Pacer(start, rate);
        long nextReport = start + TimeUnit.SECONDS.toNanos(10);
        for (int i = from; i < from + count; i++) {
            pacer.await(i - from);
            dispatch(client, tally, i, queueOf.apply(i), latencies, onAnswer);
            if (System.nanoTime() >= nextReport) {
                progress(phase, stage, tally, start);
                nextReport += TimeUnit.SECONDS.toNanos(10);
            }
        }
        awaitAnswers(phase, stage, tally, start);
        return (System.nanoTime() - start) / 1e9;
    }

    /** Waits until every activity sent is answered, or the phase's patience runs out; a progress line every 10 s. */
    private void awaitAnswers(String phase, ScaleStage stage, ScaleTally tally, long start) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(timeoutMinutes);
        long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (tally.answered() < tally.sent() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200); // polling the tally's count
            if (System.nanoTime() >= nextReport) {
                progress(phase, stage, tally, start);
                nextReport += TimeUnit.SECONDS.toNanos(10);
            }
        }
    }

    private void progress(String phase, ScaleStage stage, ScaleTally tally, long start) {
        out.printf(Locale.ROOT, "%-8s %7.1f s  sent %d, dispatches the streams app took in %d, answered %d%n", phase,
                (System.nanoTime() - start) / 1e9, tally.sent(), stage.dispatchesConsumed(), tally.answered());
    }

    private static void dispatch(DispatchClient client, ScaleTally tally, int i, String queue, Latencies latencies,
                                 java.util.function.IntConsumer onAnswer) {
        long sentAt = System.nanoTime();
        tally.sent(i);
        client.dispatch(request(i, queue)).whenComplete((ActivityOutcome o, Throwable e) -> {
            if (o != null) {
                latencies.add((System.nanoTime() - sentAt) / 1_000_000);
                onAnswer.accept(i);
                tally.answered(o.site(), o.requestId(), o.completed());
            }
        });
    }

    private static ActivityRequest request(int i, String queue) {
        return ActivityRequest.builder().site(ScaleTally.site(i)).queue(queue).activityType(ECHO)
                .input(Integer.toString(i).getBytes(StandardCharsets.UTF_8), "text/plain").build();
    }

    /** The client's count and the invariant checker's, printed; whether both hold. */
    private boolean verdict(String phase, ScaleStage stage, ScaleTally tally, boolean backlogAllowed, List<BatonProcess> workers) {
        ScaleTally.Verdict v = tally.verdict();
        long t = System.nanoTime();
        InvariantChecker.Report audit = InvariantChecker.check(stage.bootstrapServers(), tally.requestIds());
        List<String> violations = ScaleTally.violationsBeyondBacklog(audit.violations(), backlogAllowed);
        boolean countOk = backlogAllowed ? v.moreThanOnce() == 0 && v.strays() == 0 && v.exactlyOnce() + v.none() == v.sent() : v.ok();
        out.printf("%-8s client: %s%n", phase, v);
        out.printf(Locale.ROOT, "%-8s invariant checker (%.1f s): %d requests, %d outcomes, %d history events; %s%n", phase,
                (System.nanoTime() - t) / 1e9, audit.requests(), audit.outcomes(), audit.historyEvents(),
                violations.isEmpty() ? "all invariants hold"
                        + (audit.violations().isEmpty() ? "" : " (" + audit.violations().size() + " requests still pending after the bounded drain)")
                        : violations.size() + " violations: " + violations.stream().limit(10).toList());
        boolean ok = countOk && violations.isEmpty();
        if (!ok) {
            printProblems(stage.streamsApp());
            workers.forEach(this::printProblems);
        }
        return ok;
    }

    /** A failed phase's first clue: what its processes warned about. */
    private void printProblems(BatonProcess p) {
        List<String> problems = p.output().stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
        out.printf("warnings and errors of %s (%d, the last %d shown)%n", p.name(), problems.size(), Math.min(PROBLEM_LINES, problems.size()));
        problems.subList(Math.max(0, problems.size() - PROBLEM_LINES), problems.size()).forEach(l -> out.println("  " + l));
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /** Dispatch-to-outcome times in milliseconds, summarised as p50/p99/max. Thread-safe. */
    static final class Latencies {
        private final ConcurrentLinkedQueue<Long> millis = new ConcurrentLinkedQueue<>();

        void add(long ms) {
            millis.add(ms);
        }

        @Override
        public String toString() {
            return summary(new ArrayList<>(millis));
        }

        /** "n 12, p50 30 ms, p99 90 ms, max 95 ms" over the non-negative values (a -1 marks one that was never measured). */
        static String summary(List<Long> values) {
            long[] v = values.stream().mapToLong(Long::longValue).filter(x -> x >= 0).sorted().toArray();
            if (v.length == 0) {
                return "n 0";
            }
            return String.format(Locale.ROOT, "n %d, p50 %d ms, p99 %d ms, max %d ms", v.length, v[(v.length - 1) / 2],
                    v[(int) Math.ceil(v.length * 0.99) - 1], v[v.length - 1]);
        }
    }

}
