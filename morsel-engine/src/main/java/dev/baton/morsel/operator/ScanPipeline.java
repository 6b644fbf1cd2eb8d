package dev.baton.morsel.operator;

import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.scheduler.MorselTask;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;

/**
 * A pipeline assembled from operators: a scan of a {@link PageSource}, then stages (filters,
 * projections, join probes) in the order added, then one sink (an aggregate, a join build). Each
 * task scans its morsel page by page; a page flows through every stage as one {@link Batch}
 * (stopping early once no row is left) and reaches the sink.
 *
 * <pre>{@code
 * ScanPipeline scan = ScanPipeline.over(lineitem);
 * HashAggregate agg = HashAggregate.global().sum(Expr.mul(scan.col("l_extendedprice"), scan.col("l_discount")));
 * scan.filter(RangeFilter.halfOpen(scan.col("l_shipdate"), from, to)).into(agg);
 * scheduler.run(scan.pipeline("q6", PipelineKind.SCAN, morsels, scheduler.workers()));
 * AggregateResult r = agg.result(scheduler);
 * }</pre>
 *
 * Assembly is single-threaded; the built pipeline runs on any number of workers (one batch each).
 */
public final class ScanPipeline {

    private final PageSource source;
    private final Layout layout;
    private final List<Stage> stages = new ArrayList<>();
    private Sink sink;

    private ScanPipeline(PageSource source) {
        this.source = source;
        this.layout = new Layout(source.columns());
    }

    public static ScanPipeline over(PageSource source) {
        return new ScanPipeline(source);
    }

    public PageSource source() {
        return source;
    }

    /** A reference to a source column or a column computed by an earlier stage. */
    public ColumnRef col(String name) {
        return layout.col(name);
    }

    /** Adds any stage (a filter, or one of your own). */
    public ScanPipeline then(Stage stage) {
        stages.add(stage);
        return this;
    }

    public ScanPipeline filter(RangeFilter filter) {
        return then(filter);
    }

    /** Computes {@code expr} into a new column {@code name}; returns the reference to it. */
    public ColumnRef project(String name, Expr expr) {
        ColumnRef target = layout.addComputed(name);
        then(new Project(target, expr));
        return target;
    }

    /**
     * Folds runs of adjacent rows with one {@code key} into one row each ({@link RunCombine}); add its slots to the
     * returned stage, and read its output through {@link RunCombine#key()} and {@link RunCombine#slot}.
     */
    public RunCombine combineRuns(String name, Expr key) {
        RunCombine runs = new RunCombine(layout, key, name);
        then(runs);
        return runs;
    }

    /** Inner-joins with {@code build} on {@code key}; the build's payload becomes column {@code payloadName}. */
    public ColumnRef probe(JoinBuild build, Expr key, String payloadName) {
        ColumnRef payload = layout.addComputed(payloadName);
        then(new HashJoinProbe(build, key, payload));
        return payload;
    }

    public ScanPipeline into(Sink target) {
        if (sink != null) {
            throw new IllegalStateException("a pipeline has one sink; this one already ends in " + sink.getClass().getSimpleName());
        }
        this.sink = target;
        return this;
    }

    /** The pipeline for the scheduler: one task per morsel, on up to {@code workers} workers. */
    public Pipeline pipeline(String name, PipelineKind kind, List<Morsel> morsels, int workers) {
        return Pipeline.of(name, kind, morsels, rows(morsels), task(workers));
    }

    /** A probe pipeline: runs after {@code builds} (see {@link dev.baton.morsel.scheduler.MorselScheduler#runWaves}). */
    public Pipeline probePipeline(String name, List<Morsel> morsels, int workers, List<String> builds) {
        return Pipeline.probe(name, morsels, rows(morsels), builds, task(workers));
    }

    private long rows(List<Morsel> morsels) {
        long rows = 0;
        for (Morsel m : morsels) {
            for (int p = m.startPage(); p < m.endPage(); p++) {
                rows += source instanceof PageFile f ? f.rowsIn(p) : 0;
            }
        }
        return rows;
    }

    private MorselTask task(int workers) {
        if (sink == null) {
            throw new IllegalStateException("a pipeline needs a sink: call into(...) before building it");
        }
        if (sink instanceof HashAggregate a) {
            a.open(workers);
        }
        Batch[] batches = new Batch[workers];
        int computed = layout.computedCount();
        Stage[] steps = stages.toArray(Stage[]::new);
        Sink target = sink;
        return (worker, morsel, ctx) -> {
            Batch b = batches[worker];
            if (b == null) {
                b = batches[worker] = new Batch(source, computed);
            }
            for (int p = morsel.startPage(); p < morsel.endPage() && !ctx.isCancelled(); p++) {
                b.reset(p);
                boolean alive = b.selected() > 0;
                for (int s = 0; s < steps.length && alive; s++) {
                    steps[s].apply(b);
                    alive = b.selected() > 0;
                }
                if (alive) {
                    target.consume(worker, b);
                }
            }
        };
    }
}
