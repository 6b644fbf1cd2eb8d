package dev.baton.bench;

import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.bench.tpch.Answer;
import dev.baton.bench.tpch.DuckDbPeer;
import dev.baton.bench.tpch.FusedQueries;
import dev.baton.bench.tpch.Results;
import dev.baton.bench.tpch.TpchData;
import dev.baton.bench.tpch.TpchQueries;
import dev.baton.bench.warmup.JitWarmUp;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.ColumnEncoding;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton bench morsel}: TPC-H Q1, Q6, Q14 and {@code GROUP BY l_orderkey} on Baton's morsel
 * engine (queries assembled from its operators), on DuckDB ({@code SET threads=N}) and as hand-fused Java loops, alternating in one process
 * over the same rows, each timed up to its answer in its own in-memory form (the engine's and the fused
 * loop's columnar aggregate, a DuckDB temporary table; the Java rows are made after). Prints medians of warm runs, rows/s per core, the ratios and the engine's own
 * CPU time (its worker threads plus the caller, for shared machines), and checks that
 * the engine's answers equal DuckDB's row by row (exit 1 if not). Beside each query it times a control:
 * a pipeline of the query's morsels on the same scheduler whose tasks only compute (no memory), so a
 * 2-thread speed-up can be read against what the machine gave two threads at that moment.
 */
@Command(name = "morsel", mixinStandardHelpOptions = true, description = "TPC-H on the morsel engine vs DuckDB vs a fused loop.")
public final class MorselBench implements Callable<Integer> {

    @Option(names = "--sf", defaultValue = "1", description = "TPC-H scale factor (default ${DEFAULT-VALUE})")
    double scaleFactor;

    @Option(names = "--threads", defaultValue = "1,2", split = ",", description = "Worker counts to measure (default ${DEFAULT-VALUE})")
    int[] threads;

    @Option(names = "--runs", defaultValue = "5", description = "Measured runs per system (median reported; default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--warmups", defaultValue = "2", description = "Fewest unmeasured runs first; more until the JIT compiler is"
            + " quiet (default ${DEFAULT-VALUE})")
    int warmups;

    @Option(names = "--warm-up-seconds", defaultValue = "30", description = "Most time spent warming up each query at each worker"
            + " count while the JIT compiler is still busy (default ${DEFAULT-VALUE})")
    double warmUpSeconds;

    @Option(names = "--page-bytes", defaultValue = "65536", description = "Page size of the converted files (default ${DEFAULT-VALUE})")
    int pageBytes;

    @Option(names = "--queries", defaultValue = "Q1,Q6,Q14,GROUP BY l_orderkey", split = ",",
            description = "Queries to run (default: ${DEFAULT-VALUE})")
    List<String> only;

    @Option(names = "--scheduler", defaultValue = "DEQUES", description = "DEQUES (Baton's work-stealing deques) or FORK_JOIN")
    MorselScheduler.Mode mode;

    @Option(names = "--trace", description = "Run only the engine, many times per worker count, and print each query's phases:"
            + " the caller's serial time, each pipeline's busiest worker CPU, the critical path")
    boolean trace;

    @Option(names = "--data-dir", defaultValue = ".baton/tpch", description = "Where converted data is cached (default ${DEFAULT-VALUE})")
    Path dataDir;

    /**
     * Steps of the control's compute loop per page of a morsel (the same work in all whatever the morsels' size):
     * lineitem's 733 pages at SF 1 last about as long as Q6 or Q14.
     */
    static final long CONTROL_STEPS_PER_PAGE = 6_000;

    private final PrintStream out = System.out;

    /** A query as each system runs it, up to its answer in the system's own form (the rows are made untimed). */
    private record Query(String name, String sql, Function<TpchQueries, Answer> engine, Supplier<Answer> fused) {
    }

    @Override
    public Integer call() {
        long t0 = System.nanoTime();
        PageFile li = PageFile.open(TpchData.lineitem(dataDir, scaleFactor, pageBytes));
        PageFile part = PageFile.open(TpchData.part(dataDir, scaleFactor, pageBytes));
        out.printf("data      lineitem %,d rows, part %,d rows, %d-byte pages, SF %s (%d ms incl. generation if not cached)%n",
                li.rowCount(), part.rowCount(), pageBytes, scaleFactor, (System.nanoTime() - t0) / 1_000_000);
        out.printf("columns   lineitem pages stored in %,d KiB (%,d KiB as 64-bit), %s%n", (long) li.pageBytes() * li.pageCount()
                * li.columns().size() / 1024, li.rowCount() * 8 * li.columns().size() / 1024, encodings(li));
        out.printf("machine   %d cores, L2 %d KiB -> %d pages per morsel, scheduler %s%n", Runtime.getRuntime().availableProcessors(),
                Morsels.l2Bytes() / 1024, Morsels.autoTunedPagesPerMorsel(Morsels.l2Bytes(), li.pageBytes()), mode);
        if (trace) {
            traceQueries(li, part);
            return 0;
        }
        int failures = 0;
        try (DuckDbPeer duckdb = new DuckDbPeer(li, scaleFactor, dataDir)) {
            List<Query> queries = List.of(
                    new Query("Q1", TpchQueries.Q1_SQL, q -> Answer.of(q.q1(li)), () -> Answer.of(FusedQueries.q1(li))),
                    new Query("Q6", TpchQueries.Q6_SQL, q -> Answer.of(q.q6(li)), () -> Answer.of(FusedQueries.q6(li))),
                    new Query("Q14", TpchQueries.Q14_SQL, q -> Answer.of(q.q14(li, part)), () -> Answer.of(FusedQueries.q14(li, part))),
                    new Query("GROUP BY l_orderkey", TpchQueries.GROUP_BY_ORDERKEY_SQL, q -> q.groupByOrderKeyAnswer(li),
                            () -> FusedQueries.groupByOrderKeyAnswer(li)));
            out.printf("%n%-20s %7s %11s %11s %11s %15s %12s %12s %14s %13s  %s%n", "query", "threads", "engine ms", "duckdb ms", "fused ms",
                    "engine rows/s/core", "engine/duckdb", "engine/fused", "engine cpu ms", "engine gc ms", "answer");
            for (Query q : queries.stream().filter(x -> only.contains(x.name())).toList()) {
                double oneThread = 0;
                double controlOneThread = 0;
                for (int n : threads) {
                    double[] m = measure(q, n, li, duckdb);
                    Optional<String> diff = Results.difference(lastDuck, lastEngine);
                    lastDuck = lastEngine = null; // GROUP BY's boxed rows are ~0.5 GB: not live through the next measurement
                    failures += diff.isPresent() ? 1 : 0;
                    double rowsPerCore = li.rowCount() / (m[0] / 1000.0) / n;
                    out.printf("%-20s %7d %11.1f %11.1f %11.1f %,15.0f %12.2f %12.2f %14.1f %13.0f  %s%n", q.name(), n, m[0], m[1], m[2], rowsPerCore,
                            m[0] / m[1], m[0] / m[2], m[3], m[5], diff.map(d -> "DIFFERS: " + d).orElse("equal to DuckDB"));
                    if (n == 1) {
                        oneThread = m[0];
                        controlOneThread = m[4];
                    } else if (oneThread > 0) {
                        out.printf("%-20s %7s engine speed-up %d threads vs 1: %.2fx (control, compute only: %.1f -> %.1f ms, %.2fx)%n",
                                "", "", n, oneThread / m[0], controlOneThread, m[4], controlOneThread / m[4]);
                    }
                }
            }
        }
        out.println();
        warmUps.forEach(w -> out.println("warm-up   " + w));
        out.printf("%n%s%n", failures == 0 ? "all engine answers equal DuckDB's" : failures + " answers differ from DuckDB's");
        return failures == 0 ? 0 : 1;
    }

    private void traceQueries(PageFile li, PageFile part) {
        List<Query> queries = List.of(
                new Query("Q1", "", q -> Answer.of(q.q1(li)), null),
                new Query("Q6", "", q -> Answer.of(q.q6(li)), null),
                new Query("Q14", "", q -> Answer.of(q.q14(li, part)), null),
                new Query("GROUP BY l_orderkey", "", q -> q.groupByOrderKeyAnswer(li), null));
        for (Query q : queries.stream().filter(x -> only.contains(x.name())).toList()) {
            for (int n : threads) {
                MorselTrace.trace(out, q.name(), q.engine(), n, li, runs, warmups, warmUpSeconds, mode);
            }
        }
    }

    private List<List<Object>> lastEngine;
    private List<List<Object>> lastDuck;
    /** One line per query and worker count: how long its warm-up took the compiler to quiet down. */
    private final List<String> warmUps = new ArrayList<>();

    /**
     * Median ms of engine, DuckDB, fused, the engine's CPU and the control, alternating run by run so drift hits all alike;
     * then the collector's pauses summed over the engine's timed runs (a pause lands in whichever system runs then).
     */
    private double[] measure(Query q, int workers, PageFile li, DuckDbPeer duckdb) {
        duckdb.threads(workers);
        double[][] ms = new double[5][runs];
        try (MorselScheduler scheduler = new MorselScheduler(workers, 1, MorselMetrics.noop(), mode)) {
            TpchQueries engine = TpchQueries.autoTuned(scheduler, li.pageBytes());
            Pipeline control = control(engine.morsels(li));
            // Each round runs every system once, so all of them are warmed alike (the fused loop is JIT-compiled too).
            warmUps.add(String.format("%-20s %d threads: %s", q.name(), workers, JitWarmUp.run(() -> {
                q.engine().apply(engine);
                duckdb.answer(q.sql());
                q.fused().get();
                scheduler.run(control);
            }, warmups, warmUpSeconds)));
            System.gc(); // every worker count's runs start from a heap without the last one's garbage
            double gcMs = 0;
            for (int i = 0; i < runs; i++) {
                long cpu = engineCpuNanos();
                long gc = gcMillis();
                long a = System.nanoTime();
                Answer engineAnswer = q.engine().apply(engine);
                long b = System.nanoTime();
                gcMs += gcMillis() - gc;
                cpu = engineCpuNanos() - cpu;
                Answer duckAnswer = duckdb.answer(q.sql());
                long c = System.nanoTime();
                q.fused().get();
                long d = System.nanoTime();
                scheduler.run(control);
                long e = System.nanoTime();
                if (i == runs - 1) { // the rows of the last run are compared
                    lastEngine = engineAnswer.rows();
                    lastDuck = duckAnswer.rows();
                }
                ms[0][i] = (b - a) / 1e6;
                ms[1][i] = (c - b) / 1e6;
                ms[2][i] = (d - c) / 1e6;
                ms[3][i] = cpu / 1e6;
                ms[4][i] = (e - d) / 1e6;
            }
            return new double[] {median(ms[0]), median(ms[1]), median(ms[2]), median(ms[3]), median(ms[4]), gcMs};
        }
    }

    /** Milliseconds the collectors of this JVM have paused it (G1's young, mixed and full collections; not its concurrent work). */
    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += gc.getName().contains("Concurrent") ? 0 : Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    private static volatile long controlSink;

    /** One task per morsel that runs a multiply-add chain in registers: its speed-up is the machine's, not the engine's. */
    static Pipeline control(List<Morsel> morsels) {
        return new Pipeline("control", morsels, (worker, m, ctx) -> {
            long x = m.id();
            for (long i = 0, steps = CONTROL_STEPS_PER_PAGE * m.pages(); i < steps; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            controlSink = x;
        });
    }

    /**
     * CPU time of the engine's worker threads and of this thread, summed: on a shared machine the
     * wall clock measures the other tenants as much as the engine, its own CPU time much less so.
     */
    private static long engineCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = mx.getCurrentThreadCpuTime();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("baton-morsel-")) {
                sum += Math.max(0, mx.getThreadCpuTime(t.getId()));
            }
        }
        return sum;
    }

    private static String encodings(PageFile f) {
        int[] counts = f.encodingCounts();
        StringBuilder b = new StringBuilder("column pages by encoding:");
        for (ColumnEncoding e : ColumnEncoding.values()) {
            b.append(' ').append(e).append(' ').append(counts[e.ordinal()]);
        }
        return b.toString();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
