package dev.baton.cli.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.soak.GroupWatch;
import dev.baton.testkit.soak.Latencies;
import dev.baton.testkit.soak.Pacer;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;
import dev.baton.topics.ClientIds;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;

/**
 * {@code consumers}: {@code consumers} workers in this JVM, each with its own consumer, join one
 * queue's group one at a time and then leave it one at a time (a worker's close), while {@code rate}
 * dispatches a second go on; each rebalance is timed until the group is stable with every member
 * assigned. Threads rather than processes: a process would add start-up time, not rebalance time.
 */
public final class ConsumersPhase {

    private static final String QUEUE = "scale-wide";
    private static final Duration REBALANCE_PATIENCE = Duration.ofSeconds(90);

    private final PhaseSettings settings;
    private final PrintStream out;
    private final int consumers;
    private final int rate;

    public ConsumersPhase(PhaseSettings settings, int consumers, int rate) {
        this.settings = settings;
        this.out = settings.out();
        this.consumers = consumers;
        this.rate = rate;
    }

    /** Runs the phase; whether the client's count and the invariants hold and every rebalance settled. */
    public boolean run() throws Exception {
        int taskPartitions = Math.max(consumers, settings.partitions());
        int capacity = rate * 60 * 60; // an hour of dispatches at most
        ScaleTally tally = new ScaleTally(capacity);
        List<Worker> workers = new ArrayList<>();
        try (ScaleStage stage = settings.stage(List.of(QUEUE), taskPartitions);
             DispatchClient client = DispatchClient.create(stage.clientConfig("scale-consumers"),
                     o -> tally.answered(o.site(), o.requestId(), o.completed()))) {
            out.printf("consumers  %d workers in this JVM, each with its own consumer, on group %s (%d partitions); %d dispatches/s meanwhile%n",
                    consumers, ClientIds.workerGroup(QUEUE), taskPartitions, rate);
            PhaseRun run = new PhaseRun("consumers", settings, stage, tally);
            GroupWatch watch = new GroupWatch(stage.admin(), ClientIds.workerGroup(QUEUE));
            Latencies latencies = new Latencies();
            AtomicBoolean dispatching = new AtomicBoolean(true);
            AtomicInteger dispatched = new AtomicInteger();
            Thread load = new Thread(() -> load(run, client, capacity, latencies, dispatching, dispatched), "scale-consumers-load");
            load.start();
            List<Long> joins = new ArrayList<>();
            List<Long> leaves = new ArrayList<>();
            boolean allStable;
            try {
                allStable = join(stage, watch, taskPartitions, workers, joins, tally, dispatched);
                allStable &= leave(watch, taskPartitions, workers, leaves, tally, dispatched);
            } finally {
                dispatching.set(false);
                load.join();
            }
            run.awaitAnswers(System.nanoTime());
            out.printf("consumers  join k = 1..%d: group stable with k members, each assigned, after (ms): %s%n", consumers, joins);
            out.printf("consumers  leave k = %d..2 (one closes): stable with k-1 after (ms): %s%n", consumers, leaves);
            out.printf("consumers  join  %s%n", Latencies.summary(joins));
            out.printf("consumers  leave %s%n", Latencies.summary(leaves));
            out.printf("consumers  %d dispatched, %d answered; dispatch-to-outcome %s%s%n", tally.sent(), tally.answered(), latencies,
                    allStable ? "" : "; SOME REBALANCE DID NOT SETTLE within " + REBALANCE_PATIENCE.toSeconds() + " s (-1 above)");
            return run.verdict(false, List.of()) && allStable;
        } finally {
            workers.forEach(Worker::close);
        }
    }

    /** The work that flows meanwhile: dispatches at the rate until told to stop. */
    private void load(PhaseRun run, DispatchClient client, int capacity, Latencies latencies, AtomicBoolean dispatching, AtomicInteger dispatched) {
        Pacer pacer = new Pacer(System.nanoTime(), rate);
        try {
            for (int i = 0; dispatching.get() && i < capacity; i++) {
                pacer.await(i);
                run.dispatch(client, i, QUEUE, latencies, n -> { });
                dispatched.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Workers 1..n join one at a time, each join timed into {@code joins} (-1: did not settle); whether all settled. */
    private boolean join(ScaleStage stage, GroupWatch watch, int taskPartitions, List<Worker> workers, List<Long> joins, ScaleTally tally,
                         AtomicInteger dispatched) throws InterruptedException {
        boolean allStable = true;
        for (int k = 1; k <= consumers; k++) {
            long t = System.nanoTime();
            workers.add(Worker.start(WorkerOptions.builder().bootstrapServers(stage.bootstrapServers()).workerId("scale-consumer-" + k)
                    .queues(QUEUE).handler(PhaseRun.ECHO, (ctx, input) -> input).maxConcurrent(2).drainTimeout(Duration.ofSeconds(5)).build()));
            Duration d = watch.awaitStable(k, taskPartitions, t, REBALANCE_PATIENCE);
            allStable &= d != null;
            joins.add(d == null ? -1 : d.toMillis());
            if (k % 10 == 0 || k == consumers) {
                out.printf("consumers  joined %d, answered %d of %d dispatched%n", k, tally.answered(), dispatched.get());
            }
        }
        return allStable;
    }

    /** The workers close one at a time, newest first, down to one; each leave timed into {@code leaves}; whether all settled. */
    private boolean leave(GroupWatch watch, int taskPartitions, List<Worker> workers, List<Long> leaves, ScaleTally tally, AtomicInteger dispatched)
            throws InterruptedException {
        boolean allStable = true;
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
        return allStable;
    }
}
