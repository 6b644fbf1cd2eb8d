package dev.baton.testkit.soak;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.baton.events.HistoryKind;
import dev.baton.testkit.FaultSchedule;
import dev.baton.testkit.InvariantChecker;

/** The soak's printed result: the fault log, the figures, and what failed, if anything. */
public final class SoakReport {

    /** How many violations are printed; the counts say how many there were. */
    private static final int VIOLATIONS_SHOWN = 20;

    /**
     * What one soak run found.
     *
     * @param settled activities every request of which was answered
     * @param outboxSeen unmatched relays the soak's client received
     * @param outboxListed entries {@code baton outbox --client-id soak} lists
     * @param hangingAborted transactions the streams app found hanging and aborted
     * @param abandonedFenced transactions of a crashed instance the streams app fenced
     */
    public record Figures(List<String> faults, FaultSchedule.BrokerOutage brokerOutage, int activities, int settled, double seconds,
                          SoakLedger.Verdict verdict, InvariantChecker.Report audit, int outboxSeen, int outboxListed, int cancelsNotSent,
                          long hangingAborted, long abandonedFenced) {
    }

    private final PrintStream out;

    public SoakReport(PrintStream out) {
        this.out = out;
    }

    public void print(Figures f) {
        SoakLedger.Verdict v = f.verdict();
        Map<HistoryKind, Long> kinds = f.audit().byKind();
        out.println();
        out.println("fault log");
        f.faults().forEach(line -> out.println("  " + line));
        out.println("figures");
        out.printf("  activities        %d dispatched, %d resolved in %.1f s (%.0f/s)%n", f.activities(), f.settled(), f.seconds(),
                f.settled() / f.seconds());
        out.printf("  requests          %d sent, %d answered exactly once, %d with no outcome, %d with more than one, %d outcomes for "
                + "requests never sent%n", v.requests(), v.exactlyOnce(), v.none(), v.moreThanOnce(), v.strays());
        outcomeTotals(v).forEach((kind, n) -> out.printf("  outcome           %-28s %7d%n", kind, n));
        v.kindsByRole().forEach((role, byKind) -> {
            long[] ms = v.answerMillisByRole().getOrDefault(role, new long[] {-1, -1});
            out.printf("  role              %-34s %5d  %s; answered p50 %d ms, max %d ms%n", role, byKind.values().stream().mapToInt(i -> i).sum(),
                    byKind.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")), ms[0], ms[1]);
        });
        out.printf("  faults            %d worker kills, %d streams-app crash, %d broker outage (%s)%n",
                f.faults().stream().filter(l -> l.contains("kill -9 worker")).count(),
                f.faults().stream().filter(l -> l.contains("kill -9 streams")).count(),
                f.faults().stream().filter(l -> l.contains("broker started") || l.contains("let through again")).count(), f.brokerOutage());
        out.printf("  history           transport losses %d, retries %d, parks %d, refused completions %d, timeouts %d%n",
                count(kinds, HistoryKind.TRANSPORT_LOST), count(kinds, HistoryKind.RETRY_SCHEDULED), count(kinds, HistoryKind.PARKED),
                count(kinds, HistoryKind.COMPLETION_REFUSED), count(kinds, HistoryKind.TIMED_OUT));
        out.printf("  history           joined or resent %d, republished %d, superseded %d, cancelled %d, unavailable %d, unmatched %d%n",
                count(kinds, HistoryKind.DUPLICATE_IGNORED), count(kinds, HistoryKind.OUTCOME_REPUBLISHED), count(kinds, HistoryKind.SUPERSEDED),
                count(kinds, HistoryKind.CANCELLED), count(kinds, HistoryKind.UNAVAILABLE), count(kinds, HistoryKind.UNMATCHED_COMPLETION));
        out.printf("  outbox            %d late completions relayed to the soak's client%s; `baton outbox --client-id soak` lists %d%n",
                f.outboxSeen(), v.outboxByRole().isEmpty() ? "" : " (callers: " + v.outboxByRole().entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")) + ")", f.outboxListed());
        if (f.cancelsNotSent() > 0) {
            out.printf("  cancels           %d could not be sent (their callers got the run's own outcome)%n", f.cancelsNotSent());
        }
        out.printf("  hanging txns      %d aborted by the streams app (transactions Kafka left open; see docs/decisions.md)%n", f.hangingAborted());
        out.printf("  fenced txns       %d of a crashed instance (out of the group, open past transaction.fence.after.ms), ended by the streams app%n",
                f.abandonedFenced());
        out.printf("  wrong outcomes    %d (an outcome its role does not allow, or callers of one run told different outcomes)%n",
                v.wrongKind() + v.notSameAsRun());
        out.printf("  audit             %s%n", f.audit());
        if (!v.violations().isEmpty()) {
            out.printf("request violations (%d, the first %d shown)%n", v.violations().size(), Math.min(VIOLATIONS_SHOWN, v.violations().size()));
            v.violations().stream().limit(VIOLATIONS_SHOWN).forEach(line -> out.println("  " + line));
        }
    }

    private static Map<String, Integer> outcomeTotals(SoakLedger.Verdict v) {
        Map<String, Integer> totals = new TreeMap<>();
        v.kindsByRole().values().forEach(byKind -> byKind.forEach((kind, n) -> totals.merge(kind, n, Integer::sum)));
        return totals;
    }

    private static long count(Map<HistoryKind, Long> kinds, HistoryKind kind) {
        return kinds.getOrDefault(kind, 0L);
    }
}
