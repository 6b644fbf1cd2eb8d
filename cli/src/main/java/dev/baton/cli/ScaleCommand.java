package dev.baton.cli;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import dev.baton.cli.scale.ConsumersPhase;
import dev.baton.cli.scale.PendingPhase;
import dev.baton.cli.scale.PhaseSettings;
import dev.baton.cli.scale.QueuesPhase;
import dev.baton.cli.scale.StallPhase;
import dev.baton.testkit.BatonProcess;
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
 *       (bounded by {@code --drain-timeout-s}) ({@link PendingPhase});</li>
 *   <li>{@code queues}: many queues, worker processes each serving a share of them ({@link QueuesPhase});</li>
 *   <li>{@code consumers}: many workers (in this JVM, each with its own consumer) join one queue's group
 *       one at a time and leave it one at a time, while work flows; each rebalance timed ({@link ConsumersPhase});</li>
 *   <li>{@code stall}: a client whose results listener is blocked for a minute while it keeps
 *       dispatching; its heap after GC sampled throughout ({@link StallPhase}).</li>
 * </ul>
 * This class is the command only: its options and their checks, the chosen phases in order, the summary.
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

    @Option(names = "--streams-config", paramLabel = "KEY=VALUE",
            description = "A setting for each phase's streams app (repeatable), e.g. commit.interval.ms=1000; default none")
    List<String> streamsConfig = new ArrayList<>();

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

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        check();
        long started = System.nanoTime();
        out.printf("scale  phases %s; %d cores, this JVM -Xmx%d MiB; load average %.2f%n", phases, Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        PhaseSettings settings = new PhaseSettings(out, partitions, streamsHeap, streamsConfig, Duration.ofMinutes(timeoutMinutes));
        List<String> verdicts = new ArrayList<>();
        boolean ok = true;
        for (Phase p : Phase.values()) {
            if (!phases.contains(p)) {
                continue;
            }
            out.printf("%n== phase %s ==%n", p);
            long t = System.nanoTime();
            boolean phaseOk = run(p, settings);
            verdicts.add(String.format(Locale.ROOT, "%-10s %s (%.0f s)", p, phaseOk ? "ok" : "FAIL", (System.nanoTime() - t) / 1e9));
            ok &= phaseOk;
        }
        out.printf("%nsummary%n");
        verdicts.forEach(v -> out.println("  " + v));
        out.printf("%s   %.1f s in all%n", ok ? "ok  " : "FAIL", (System.nanoTime() - started) / 1e9);
        return ok ? 0 : 1;
    }

    private boolean run(Phase p, PhaseSettings settings) throws Exception {
        return switch (p) {
            case pending -> new PendingPhase(settings, pending, pendingRate, sampleEverySeconds, drainWorkers, drainTimeoutSeconds).run();
            case queues -> new QueuesPhase(settings, queueCount, queueWorkers, queueActivities, queueRate).run();
            case consumers -> new ConsumersPhase(settings, consumers, consumerRate).run();
            case stall -> new StallPhase(settings, stallSeconds, stallRate, stallWorkers).run();
        };
    }

    private void check() {
        if (phases.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--phases names no phase");
        }
        for (int v : new int[] {partitions, pending, pendingRate, sampleEverySeconds, queueCount, queueWorkers, queueActivities, queueRate,
            consumers, consumerRate, stallSeconds, stallRate, stallWorkers, timeoutMinutes}) {
            if (v < 1) {
                throw new ParameterException(spec.commandLine(), "every count, rate and period must be >= 1");
            }
        }
        for (String setting : streamsConfig) {
            if (setting.indexOf('=') < 1) {
                throw new ParameterException(spec.commandLine(), "--streams-config must be key=value, was " + setting);
            }
        }
        if (queueWorkers > queueCount) {
            throw new ParameterException(spec.commandLine(), "--queue-workers " + queueWorkers + " exceeds --queues " + queueCount);
        }
    }
}
