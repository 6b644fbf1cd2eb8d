package dev.baton.morsel.scheduler;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.morsel.Morsel;

/**
 * Runs pipelines on a fixed set of worker threads with work stealing.
 *
 * <p>Each pipeline's morsels are dealt to per-worker deques, round-robin among the workers of the
 * morsel's preferred NUMA node. A worker takes from the front of its own deque and, when empty,
 * steals from the back of a peer's, so a slow worker's backlog is finished by the others.
 * {@link #run(Pipeline)} returns only when every task finished — that is the barrier between
 * waves. A {@link PipelineKind#PROBE} pipeline runs only inside {@link #runWaves}, after the build
 * pipelines it names, and its morsels are dealt by hash exchange instead (see {@link PipelineKind}). When a task throws, the first failure is kept, every worker stops taking tasks and running
 * tasks see {@link TaskContext#isCancelled()}; the call then throws {@link PipelineFailedException}.
 *
 * <p>Worker 0 is the thread that calls {@link #run}; workers 1.. are the scheduler's own threads. A peer's failure does
 * not interrupt the calling thread (its tasks see {@link TaskContext#isCancelled()}), but an interrupt of the calling
 * thread reaches worker 0's running task.
 *
 * <p>Hand-rolled deques rather than a ForkJoinPool: tasks are flat (no fork/join inside a morsel),
 * and owning the deal lets the scheduler honour NUMA preference and report per-worker counts.
 * One pipeline runs at a time per scheduler.
 */
public final class MorselScheduler implements AutoCloseable {

    /** How tasks reach workers: Baton's own deques, or a ForkJoinPool (kept to measure against). */
    public enum Mode { DEQUES, FORK_JOIN }

    private final Mode mode;
    private final ForkJoinPool forkJoin;
    private final int workers;
    private final int numaNodes;
    private final ExecutorService threads;
    private final MorselMetrics metrics;
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private volatile Consumer<PipelineReport> listener = r -> { };

    public MorselScheduler(int workers, int numaNodes, MorselMetrics metrics) {
        this(workers, numaNodes, metrics, Mode.DEQUES);
    }

    public MorselScheduler(int workers, int numaNodes, MorselMetrics metrics, Mode mode) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, was " + workers);
        }
        if (numaNodes < 1) {
            throw new IllegalArgumentException("numaNodes must be >= 1, was " + numaNodes);
        }
        this.workers = workers;
        this.numaNodes = numaNodes;
        this.metrics = metrics;
        this.mode = mode;
        this.forkJoin = mode == Mode.FORK_JOIN ? new ForkJoinPool(workers,
                ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, false, workers, workers, 1,
                pool -> true, 60, TimeUnit.SECONDS) : null;
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(Math.max(1, workers - 1), r -> {
            Thread t = new Thread(r, "baton-morsel-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public int workers() {
        return workers;
    }

    /**
     * Hands every pipeline's report to {@code listener} on the calling thread as the pipeline ends (a bench's trace of
     * the phases of a query); replaces the previous listener.
     */
    public void onPipeline(Consumer<PipelineReport> listener) {
        this.listener = listener == null ? r -> { } : listener;
    }

    /** The NUMA node of each worker: workers are spread round-robin over the nodes. */
    public int numaNodeOf(int worker) {
        return worker % numaNodes;
    }

    /**
     * Runs the waves in order, each a barrier for the next. A probe pipeline runs only after every
     * build it names ran earlier in this list; otherwise nothing runs and this throws
     * {@link IllegalArgumentException} naming the probe and the missing build.
     */
    public List<PipelineReport> runWaves(List<Pipeline> waves) {
        Set<String> built = new HashSet<>();
        for (Pipeline p : waves) {
            for (String build : p.builds()) {
                if (!built.contains(build)) {
                    throw new IllegalArgumentException("probe pipeline '" + p.name() + "' reads build '" + build
                            + "', which does not run before it; builds before it: " + built);
                }
            }
            if (p.kind() == PipelineKind.BUILD) {
                built.add(p.name());
            }
        }
        List<PipelineReport> reports = new ArrayList<>();
        for (Pipeline p : waves) {
            reports.add(runChecked(p));
        }
        return reports;
    }

    /** Runs one pipeline to its barrier. A probe pipeline must run through {@link #runWaves}, after its builds. */
    public PipelineReport run(Pipeline pipeline) {
        if (pipeline.kind() == PipelineKind.PROBE) {
            throw new IllegalArgumentException("probe pipeline '" + pipeline.name() + "' must run with runWaves, after its builds "
                    + pipeline.builds());
        }
        return runChecked(pipeline);
    }

    /*
     * Why worker 0 is the calling thread: handing every task to pool threads parked the caller at each pipeline and woke it
     * at the end, two thread handoffs per pipeline even at one worker. A woken thread waits for a CPU, and on a shared
     * machine that wait (a tenant's thread holds the CPU the woken one was put on) is milliseconds, which a 10-20 ms query
     * of one to three pipelines feels. The caller already holds a CPU: it starts its share at once, and nobody needs to
     * wake it when it finishes last.
     */
    private PipelineReport runChecked(Pipeline pipeline) {
        if (mode == Mode.FORK_JOIN) {
            return runForkJoin(pipeline);
        }
        long start = System.nanoTime();
        List<ConcurrentLinkedDeque<Morsel>> deques = MorselDeal.deal(pipeline.kind(), pipeline.morsels(), workers, numaNodes);
        AtomicReference<PipelineFailedException> failure = new AtomicReference<>();
        int[] perWorker = new int[workers];
        long[] cpu = new long[workers];
        long[] began = new long[workers];
        long[] ended = new long[workers];
        AtomicInteger stolen = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(workers - 1);
        TaskContext context = () -> failure.get() != null;
        List<Thread> running = Collections.synchronizedList(new ArrayList<>());
        Runnable[] share = new Runnable[workers];
        for (int w = 0; w < workers; w++) {
            int worker = w;
            share[w] = () -> {
                metrics.workerStarted();
                long cpuAtStart = CPU.getCurrentThreadCpuTime();
                began[worker] = System.nanoTime() - start;
                try {
                    Morsel m;
                    while (failure.get() == null && (m = take(deques, worker, stolen)) != null) {
                        try {
                            pipeline.task().run(worker, m, context);
                            perWorker[worker]++;
                            metrics.morselDone(m);
                        } catch (Throwable e) {
                            if (failure.compareAndSet(null, new PipelineFailedException(pipeline.name(), m.id(), e))) {
                                interruptOthers(running);
                            }
                        }
                    }
                } finally {
                    cpu[worker] = CPU.getCurrentThreadCpuTime() - cpuAtStart;
                    ended[worker] = System.nanoTime() - start;
                    metrics.workerStopped();
                }
            };
        }
        for (int w = 1; w < workers; w++) {
            Runnable mine = share[w];
            threads.execute(() -> {
                running.add(Thread.currentThread());
                try {
                    mine.run();
                } finally {
                    running.remove(Thread.currentThread());
                    Thread.interrupted();
                    done.countDown();
                }
            });
        }
        try {
            share[0].run(); // worker 0 is the calling thread: see the comment above
        } finally {
            awaitUninterruptibly(done); // even if worker 0 threw: no pipeline may outlive its run
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        List<Integer> counts = new ArrayList<>();
        int total = 0;
        for (int c : perWorker) {
            counts.add(c);
            total += c;
        }
        long nanos = System.nanoTime() - start;
        if (pipeline.rows() > 0) {
            metrics.rowsScanned(pipeline.rows());
            metrics.queryDone(pipeline.rows(), nanos);
        }
        PipelineReport report = new PipelineReport(pipeline.name(), total, counts, stolen.get(), nanos, boxed(cpu), boxed(began),
                boxed(ended));
        listener.accept(report);
        return report;
    }

    /** The same contract on a ForkJoinPool: one task per morsel, first failure cancels the rest. */
    private PipelineReport runForkJoin(Pipeline pipeline) {
        long start = System.nanoTime();
        long steals = forkJoin.getStealCount();
        AtomicReference<PipelineFailedException> failure = new AtomicReference<>();
        AtomicIntegerArray perWorker = new AtomicIntegerArray(workers);
        TaskContext context = () -> failure.get() != null;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Morsel m : pipeline.morsels()) {
            tasks.add(() -> {
                if (failure.get() != null) {
                    return null;
                }
                int worker = ForkJoinTask.getPool() == forkJoin
                        ? ((ForkJoinWorkerThread) Thread.currentThread()).getPoolIndex() : -1;
                try {
                    if (worker < 0 || worker >= workers) {
                        throw new IllegalStateException("fork-join worker index " + worker + " outside 0.." + (workers - 1));
                    }
                    pipeline.task().run(worker, m, context);
                    perWorker.incrementAndGet(worker);
                    metrics.morselDone(m);
                } catch (Throwable e) {
                    failure.compareAndSet(null, new PipelineFailedException(pipeline.name(), m.id(), e));
                }
                return null;
            });
        }
        metrics.workerStarted();
        try {
            forkJoin.invokeAll(tasks);
        } finally {
            metrics.workerStopped();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        List<Integer> counts = new ArrayList<>();
        int total = 0;
        for (int w = 0; w < workers; w++) {
            counts.add(perWorker.get(w));
            total += perWorker.get(w);
        }
        long nanos = System.nanoTime() - start;
        if (pipeline.rows() > 0) {
            metrics.rowsScanned(pipeline.rows());
            metrics.queryDone(pipeline.rows(), nanos);
        }
        PipelineReport report = new PipelineReport(pipeline.name(), total, counts, (int) (forkJoin.getStealCount() - steals), nanos,
                List.of(), List.of(), List.of());
        listener.accept(report);
        return report;
    }

    /** Which worker's deque each morsel of a pipeline of {@code kind} is dealt to before any stealing (for tests and reports; quadratic). */
    public int[] dealing(PipelineKind kind, List<Morsel> morsels) {
        List<ConcurrentLinkedDeque<Morsel>> deques = MorselDeal.deal(kind, morsels, workers, numaNodes);
        int[] out = new int[morsels.size()];
        for (int w = 0; w < deques.size(); w++) {
            for (Morsel m : deques.get(w)) {
                out[morsels.indexOf(m)] = w;
            }
        }
        return out;
    }

    private Morsel take(List<ConcurrentLinkedDeque<Morsel>> deques, int worker, AtomicInteger stolen) {
        Morsel own = deques.get(worker).pollFirst();
        if (own != null) {
            return own;
        }
        for (int i = 1; i < workers; i++) {
            Morsel m = deques.get((worker + i) % workers).pollLast();
            if (m != null) {
                stolen.incrementAndGet();
                return m;
            }
        }
        return null;
    }

    private static List<Long> boxed(long[] v) {
        List<Long> out = new ArrayList<>(v.length);
        for (long x : v) {
            out.add(x);
        }
        return out;
    }

    private static void interruptOthers(List<Thread> running) {
        synchronized (running) {
            for (Thread t : running) {
                if (t != Thread.currentThread()) {
                    t.interrupt();
                }
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
        if (forkJoin != null) {
            forkJoin.shutdownNow();
        }
    }
}
