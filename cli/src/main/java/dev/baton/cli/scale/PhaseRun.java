package dev.baton.cli.scale;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.soak.Latencies;
import dev.baton.testkit.soak.Pacer;
import dev.baton.testkit.soak.ScaleStage;
import dev.baton.testkit.soak.ScaleTally;

/**
 * One phase's run on its stage: dispatching activity {@code i} (site {@link ScaleTally#site(int)},
 * type {@link #ECHO}), waiting for the answers with a progress line every 10 s, and the closing
 * verdict (the client's count and the invariant checker's). Prints to the phase's stream, each line
 * led by the phase's name. The dispatching methods may be called from any thread.
 */
final class PhaseRun {

    /** The activity type every phase dispatches; the workers echo the input back. */
    static final String ECHO = "echo";
    private static final int PROBLEM_LINES = 15;
    private static final long REPORT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String phase;
    private final PhaseSettings settings;
    private final ScaleStage stage;
    private final ScaleTally tally;
    private final PrintStream out;

    PhaseRun(String phase, PhaseSettings settings, ScaleStage stage, ScaleTally tally) {
        this.phase = phase;
        this.settings = settings;
        this.stage = stage;
        this.tally = tally;
        this.out = settings.out();
    }

    static ActivityRequest request(int i, String queue) {
        return ActivityRequest.builder().site(ScaleTally.site(i)).queue(queue).activityType(ECHO)
                .input(Integer.toString(i).getBytes(StandardCharsets.UTF_8), "text/plain").build();
    }

    /** Dispatches activity {@code i} to {@code queue}; on its outcome, records the time, calls {@code onAnswer} and then tallies it. */
    void dispatch(DispatchClient client, int i, String queue, Latencies latencies, IntConsumer onAnswer) {
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

    /** Dispatches activities {@code from} to {@code from + count - 1} at {@code rate} and waits for every answer; returns the seconds it all took. */
    double dispatchAndAwait(DispatchClient client, int from, int count, int rate, IntFunction<String> queueOf, Latencies latencies,
                            IntConsumer onAnswer) throws InterruptedException {
        long start = System.nanoTime();
        Pacer pacer = new Pacer(start, rate);
        long nextReport = start + REPORT_NANOS;
        for (int i = from; i < from + count; i++) {
            pacer.await(i - from);
            dispatch(client, i, queueOf.apply(i), latencies, onAnswer);
            if (System.nanoTime() >= nextReport) {
                progress(start);
                nextReport += REPORT_NANOS;
            }
        }
        awaitAnswers(start);
        return (System.nanoTime() - start) / 1e9;
    }

    /** Waits until every activity sent is answered, or the phase's patience runs out; a progress line every 10 s, timed from {@code start}. */
    void awaitAnswers(long start) throws InterruptedException {
        long deadline = System.nanoTime() + settings.patience().toNanos();
        long nextReport = System.nanoTime() + REPORT_NANOS;
        while (tally.answered() < tally.sent() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200); // polling the tally's count
            if (System.nanoTime() >= nextReport) {
                progress(start);
                nextReport += REPORT_NANOS;
            }
        }
    }

    private void progress(long start) {
        out.printf(Locale.ROOT, "%-8s %7.1f s  sent %d, dispatches the streams app took in %d, answered %d%n", phase,
                (System.nanoTime() - start) / 1e9, tally.sent(), stage.dispatchesConsumed(), tally.answered());
    }

    /**
     * Prints the client's count and the invariant checker's verdict and returns whether both hold;
     * with {@code backlogAllowed} (a bounded drain) requests still unanswered are no failure. A failed
     * phase also prints what the streams app and {@code workers} warned about, its first clue.
     */
    boolean verdict(boolean backlogAllowed, List<BatonProcess> workers) {
        ScaleTally.Verdict v = tally.verdict();
        long t = System.nanoTime();
        InvariantChecker.Report audit = InvariantChecker.check(stage.bootstrapServers(), tally.requestIds());
        List<String> violations = ScaleTally.violationsBeyondBacklog(audit.violations(), backlogAllowed);
        out.printf("%-8s client: %s%n", phase, v);
        out.printf(Locale.ROOT, "%-8s invariant checker (%.1f s): %d requests, %d outcomes, %d history events; %s%n", phase,
                (System.nanoTime() - t) / 1e9, audit.requests(), audit.outcomes(), audit.historyEvents(),
                violations.isEmpty() ? "all invariants hold"
                        + (audit.violations().isEmpty() ? "" : " (" + audit.violations().size() + " requests still pending after the bounded drain)")
                        : violations.size() + " violations: " + violations.stream().limit(10).toList());
        boolean ok = v.ok(backlogAllowed) && violations.isEmpty();
        if (!ok) {
            printProblems(stage.streamsApp());
            workers.forEach(this::printProblems);
        }
        return ok;
    }

    private void printProblems(BatonProcess p) {
        List<String> problems = p.output().stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
        out.printf("warnings and errors of %s (%d, the last %d shown)%n", p.name(), problems.size(), Math.min(PROBLEM_LINES, problems.size()));
        problems.subList(Math.max(0, problems.size() - PROBLEM_LINES), problems.size()).forEach(l -> out.println("  " + l));
    }
}
