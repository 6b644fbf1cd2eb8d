package dev.baton.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import dev.baton.bench.tpch.Answer;
import dev.baton.bench.tpch.TpchQueries;
import dev.baton.bench.warmup.JitWarmUp;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineReport;

/**
 * {@code bench morsel --trace}: a query's engine runs alone, each split into its phases as the scheduler reports them.
 * The serial part is the caller's time outside every pipeline (set-up, the merges it does itself); each pipeline's
 * critical path is its busiest worker's thread CPU. Their sum is what the query would take on idle cores, which a
 * shared machine's wall clock cannot show; a worker's start after the pipeline's shows the machine's own delay. The
 * evenly split path puts each phase's mean worker CPU in place of its busiest: the gap between the two is imbalance (a
 * coarse last morsel, a worker the machine started late), the rest of it is serial or work.
 */
final class MorselTrace {

    private MorselTrace() {
    }

    /** One run: its wall time and its pipelines' reports, in order. */
    private record Run(long wallNanos, List<PipelineReport> phases) {
        long pipelinesNanos() {
            return phases.stream().mapToLong(PipelineReport::nanos).sum();
        }

        long criticalNanos() {
            return wallNanos - pipelinesNanos() + phases.stream().mapToLong(PipelineReport::busiestWorkerCpuNanos).sum();
        }

        /** The critical path had every phase's CPU been split evenly: what is left is the serial part and the work itself. */
        long balancedNanos() {
            return wallNanos - pipelinesNanos() + phases.stream().mapToLong(p -> meanCpu(p)).sum();
        }

        long cpuNanos() {
            return phases.stream().flatMap(p -> p.workerCpuNanos().stream()).mapToLong(Long::longValue).sum();
        }
    }

    private static long meanCpu(PipelineReport p) {
        return p.workerCpuNanos().stream().mapToLong(Long::longValue).sum() / Math.max(1, p.workerCpuNanos().size());
    }

    static void trace(PrintStream out, String query, Function<TpchQueries, Answer> engine, int workers, PageFile li, int runs,
            int warmups, double warmUpSeconds, MorselScheduler.Mode mode) {
        List<Run> measured = new ArrayList<>();
        try (MorselScheduler scheduler = new MorselScheduler(workers, 1, MorselMetrics.noop(), mode)) {
            TpchQueries queries = TpchQueries.autoTuned(scheduler, li.pageBytes());
            JitWarmUp.Report warmUp = JitWarmUp.run(() -> engine.apply(queries), warmups, warmUpSeconds);
            out.printf("trace %-20s %d workers, warm-up: %s%n", query, workers, warmUp);
            for (int i = 0; i < runs; i++) {
                List<PipelineReport> phases = new ArrayList<>();
                scheduler.onPipeline(phases::add);
                long start = System.nanoTime();
                engine.apply(queries);
                long wall = System.nanoTime() - start;
                measured.add(new Run(wall, phases));
            }
        }
        out.printf("trace %-20s %d workers, medians of %d runs: wall %.2f ms = serial %.2f + pipelines %.2f; critical path %.2f ms"
                + " (evenly split %.2f); worker cpu %.2f ms%n", query, workers, runs, median(measured, Run::wallNanos),
                median(measured, r -> r.wallNanos() - r.pipelinesNanos()), median(measured, Run::pipelinesNanos), median(measured, Run::criticalNanos),
                median(measured, Run::balancedNanos), median(measured, Run::cpuNanos));
        int phases = measured.get(0).phases().size();
        for (int p = 0; p < phases; p++) {
            int at = p;
            List<PipelineReport> reports = measured.stream().filter(r -> r.phases().size() == phases).map(r -> r.phases().get(at)).toList();
            StringBuilder perWorker = new StringBuilder();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                perWorker.append(String.format(" w%d cpu %.2f start %.2f end %.2f tasks %.0f;", w,
                        medianOf(reports, r -> r.workerCpuNanos().get(worker)), medianOf(reports, r -> r.workerStartNanos().get(worker)),
                        medianOf(reports, r -> r.workerEndNanos().get(worker)), medianOf(reports, r -> (long) r.perWorker().get(worker) * 1_000_000)));
            }
            out.printf("trace   %-24s wall %.2f, busiest worker cpu %.2f, mean %.2f;%s%n", reports.get(0).pipeline(),
                    medianOf(reports, PipelineReport::nanos), medianOf(reports, PipelineReport::busiestWorkerCpuNanos),
                    medianOf(reports, MorselTrace::meanCpu), perWorker);
        }
    }

    private static double median(List<Run> runs, java.util.function.ToLongFunction<Run> f) {
        return medianMs(runs.stream().mapToLong(f).toArray());
    }

    private static double medianOf(List<PipelineReport> reports, java.util.function.ToLongFunction<PipelineReport> f) {
        return medianMs(reports.stream().mapToLong(f).toArray());
    }

    private static double medianMs(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? 0 : (s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0) / 1e6;
    }
}
