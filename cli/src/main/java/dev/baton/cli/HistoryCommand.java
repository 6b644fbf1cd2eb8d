package dev.baton.cli;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import dev.baton.cli.options.Printable;
import dev.baton.events.HistoryEvent;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.HistoryStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton history --workflow W} prints a workflow's timeline; {@code baton history stats} groups outcomes and latency. */
@Command(name = "history", mixinStandardHelpOptions = true, subcommands = HistoryCommand.Stats.class,
        description = "Read baton.history: one workflow's timeline (--workflow), or `stats`.")
public final class HistoryCommand implements Callable<Integer> {

    @Mixin
    LogScanOptions logs;

    @Option(names = "--workflow", description = "The workflow id whose timeline to print")
    String workflow;

    @Option(names = "--namespace", description = "Only this namespace")
    String namespace;

    @Option(names = "--stack", description = "Print the stacks of the failures workers reported, not only their types and messages")
    boolean stacks;



    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (workflow == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give --workflow W for a timeline, or use `baton history stats`");
        }
        try (HistoryLog log = logs.open()) {
            List<HistoryEvent> events = log.workflow(workflow, namespace);
            events.sort(Comparator.comparingLong(HistoryEvent::getAtMillis));
            if (events.isEmpty()) {
                System.out.println("no history for workflow '" + Printable.of(workflow) + "'" + (namespace == null ? "" : " in namespace " + Printable.of(namespace)));
                return 1;
            }
            for (HistoryEvent e : events) {
                System.out.printf("%s  %-20s %-20s attempt %d%s%s%s%n", Instant.ofEpochMilli(e.getAtMillis()), Printable.of(e.getSite().getActivityId()),
                        e.getKind(), e.getAttempt(), e.getGeneration() == null ? "" : " gen " + e.getGeneration(),
                        e.getWorkerId() == null ? "" : " worker " + Printable.of(e.getWorkerId()), e.getReason() == null ? "" : "  " + Printable.of(e.getReason()));
                FailureLines.of(ActivityFailure.of(e.getFailure()), stacks, "      ").forEach(System.out::println);
            }
            return 0;
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Outcome counts and dispatch-to-outcome latency percentiles per group, computed by the morsel engine.")
    static final class Stats implements Callable<Integer> {
        @Mixin
        LogScanOptions logs;

        @Option(names = "--by", defaultValue = "outcome", description = "queue, type or outcome (default ${DEFAULT-VALUE})")
        HistoryStats.GroupBy by;

        @Option(names = "--namespace", description = "Only this namespace")
        String namespace;



        @Override
        public Integer call() {
            try (HistoryLog log = logs.open()) {
                Map<String, HistoryStats.Group> groups = new TreeMap<>(HistoryStats.compute(log, new HistoryLog.Scope(Long.MIN_VALUE, namespace), by));
                System.out.printf("%-30s %9s %11s %11s %11s%n", by.name().toLowerCase(), "sites", "p50 ms", "p99 ms", "max ms");
                groups.forEach((k, g) -> System.out.printf("%-30s %9d %11s %11s %11s%n", Printable.of(k), g.count(), g.percentile(50), g.percentile(99), g.percentile(100)));
                var scan = log.lastScan();
                System.out.printf("(%,d history records scanned in %.2f s on %d threads)%n", scan.records(), scan.nanos() / 1e9, logs.threads);
                return 0;
            }
        }
    }
}
