package dev.baton.cli;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.options.Printable;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.Replay;
import dev.baton.morsel.kafka.ScanTimings;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton replay}: folds history per site, reports dangling and parked sites, optionally re-dispatches the dangling ones. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Fold baton.history per site; report dangling sites (dispatched, unanswered, no live state) and re-send them with --redispatch.")
public final class ReplayCommand implements Callable<Integer> {

    @Mixin
    LogScanOptions logs;

    @Option(names = "--from", description = "Only history from this instant (ISO-8601, e.g. 2026-11-29T10:00:00Z) or epoch millis")
    String from;

    @Option(names = "--namespace", description = "Only sites of this namespace")
    String namespace;

    @Option(names = "--redispatch", description = "Re-send each dangling site's original dispatch command (idempotency keys unchanged)")
    boolean redispatch;

    @Option(names = "--application-id", defaultValue = "baton-streams", description = "The streams app's application.id (default ${DEFAULT-VALUE})")
    String applicationId;

    @Option(names = "--timings", description = "Print where the time went (JVM start, consumers, each topic's phases) to stderr at the end")
    boolean timings;

    /** The threads' CPU just before the scan consumers and workers end, for --timings. */
    private String cpuBeforeClose = "";

    @Override
    public Integer call() throws Exception {
        ScanTimings t = timings ? ScanTimings.from(System.nanoTime()) : ScanTimings.off();
        try {
            return replay(t);
        } finally {
            if (timings) {
                PhaseReport.print(t, cpuBeforeClose, System.err);
            }
        }
    }

    private int replay(ScanTimings phases) throws Exception {
        HistoryLog.Scope scope = new HistoryLog.Scope(from == null ? Long.MIN_VALUE : parseInstant(from), namespace);
        long opened = System.nanoTime();
        HistoryLog log = logs.open(phases);
        phases.done("open (registry, consumers, scheduler)", opened);
        try {
            Replay.Report r = Replay.analyse(log, scope, applicationId, phases);
            if (!r.dangling().isEmpty() && r.live() == 0) {
                String unknown = unknownApplication(logs.client.clientConfig(), applicationId);
                if (unknown != null) {
                    System.out.println(unknown);
                    return 2;
                }
            }
            long printing = System.nanoTime();
            var scan = log.lastScan();
            System.out.printf("scan      %,d history records in %d morsels of %,d offsets on %d threads: %.2f s, %,.0f records/s, %.1f MB/s%s%n",
                    scan.records(), scan.morsels(), scan.offsetsPerMorsel(), logs.threads, scan.nanos() / 1e9, scan.recordsPerSecond(),
                    scan.bytes() / 1e6 / Math.max(1e-9, scan.nanos() / 1e9),
                    log.lastUndecodable() == 0 ? "" : ", " + log.lastUndecodable() + " undecodable (skipped)");
            System.out.printf("sites     %d dispatched: %d resolved, %d live in the streams app, %d dangling, %d parked and not resumed%n",
                    r.sites(), r.resolved(), r.live(), r.dangling().size(), r.parked());
            r.byOutcome().forEach((k, n) -> System.out.printf("outcome   %-28s %7d%n", k, n));
            r.dangling().stream().limit(20).forEach(t -> System.out.printf("dangling  %s (attempt %d, queue %s, request %s)%n",
                    Printable.of(t.siteKey()), t.attempt(), Printable.of(t.queue()), Printable.of(t.requestId())));
            if (r.dangling().size() > 20) {
                System.out.printf("dangling  ... and %d more%n", r.dangling().size() - 20);
            }
            if (redispatch && !r.dangling().isEmpty()) {
                Replay.Redispatch d = Replay.redispatch(logs.client.clientConfig(), log, r.dangling());
                System.out.printf("redispatch re-sent %d dispatch commands (idempotency keys and request ids unchanged)%n", d.sent());
                if (!d.missing().isEmpty()) {
                    System.out.printf("redispatch %d sites have no command left in baton.dispatch (retention?): %s%n", d.missing().size(),
                            d.missing().stream().limit(20).map(Printable::of).toList());
                    return 1;
                }
            } else if (!r.dangling().isEmpty()) {
                System.out.println("hint      re-send them with --redispatch");
            }
            phases.done("print", printing);
            return 0;
        } finally {
            cpuBeforeClose = phases.on() ? PhaseReport.cpuByThreadKind() : "";
            long closing = System.nanoTime();
            log.close();
            phases.done("close", closing);
        }
    }

    /**
     * Why no streams app runs under {@code applicationId}, or null when one does (or the cluster cannot tell). A missing
     * changelog reads as wiped state, which is what replay repairs; but a streams app that lost its state still has its
     * consumer group's offsets on {@code baton.dispatch}. With neither, the id is not the streams app's, and every waiting
     * site would be reported dangling and re-sent.
     */
    static String unknownApplication(Map<String, Object> clientConfig, String applicationId) {
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            boolean changelog = admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(applicationId + "-sites-changelog");
            boolean readDispatch = admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .keySet().stream().anyMatch(tp -> tp.topic().equals(BatonTopics.DISPATCH));
            if (changelog || readDispatch) {
                return null;
            }
            return "error     --application-id '" + applicationId + "': no streams app of that application.id has read "
                    + BatonTopics.DISPATCH + " (no consumer group '" + applicationId + "' with offsets on it, no topic '" + applicationId
                    + "-sites-changelog'), so its live sites cannot be told from dangling ones: give the streams app's application.id"
                    + " (nothing was re-sent)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception cannotTell) {
            return null; // an operator without the rights to ask keeps the old behaviour
        }
    }

    static long parseInstant(String text) {
        if (text.chars().allMatch(Character::isDigit)) {
            return Long.parseLong(text);
        }
        try {
            return Instant.parse(text).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--from must be ISO-8601 (2026-11-29T10:00:00Z) or epoch millis, was '" + text + "'");
        }
    }
}
