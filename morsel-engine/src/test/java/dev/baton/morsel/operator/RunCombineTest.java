package dev.baton.morsel.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run combine leaves one row per run of adjacent equal keys with its slots folded, and an aggregate after it answers
 * what the aggregate alone answers, however runs fall across pages, morsels and workers.
 */
class RunCombineTest {

    private static final List<String> COLUMNS = List.of("k", "o", "v");

    @TempDir
    Path dir;

    @Test
    void shouldFoldEachRunOfAdjacentEqualKeysIntoItsFirstRow() {
        // key 1 in two runs: combined within each run only
        long[][] rows = {{1, 10, 5}, {1, 12, 3}, {2, 11, 7}, {1, 13, 9}, {1, 9, 1}};
        PageFile f = Tables.write(dir, "runs", COLUMNS, rows, 4096);
        ScanPipeline scan = ScanPipeline.over(f);
        RunCombine runs = scan.combineRuns("r", scan.col("k")).maxBy(scan.col("o"), scan.col("v")).min(scan.col("v"));
        Batch b = new Batch(f, 4);
        b.reset(0);
        runs.apply(b);

        assertThat(b.selected()).isEqualTo(3);
        assertThat(b.selection()).startsWith(0, 2, 3);
        long[] key = b.computed(runs.key().index());
        long[] order = b.computed(runs.slot(0).index());
        long[] value = b.computed(runs.slot(1).index());
        long[] min = b.computed(runs.slot(2).index());
        assertThat(new long[] {key[0], order[0], value[0], min[0]}).containsExactly(1, 12, 3, 3);
        assertThat(new long[] {key[2], order[2], value[2], min[2]}).containsExactly(2, 11, 7, 7);
        assertThat(new long[] {key[3], order[3], value[3], min[3]}).containsExactly(1, 13, 9, 1);
    }

    @Test
    void shouldTakeEveryValueOfAnArgMaxFromTheRowWithTheLargestOrder() {
        // key 1: orders 5, 5, 4; the tie on 5 goes to the larger first value (4 over 3), and the second value comes with it
        long[][] rows = {{1, 5, 3, 100}, {1, 5, 4, 1}, {1, 4, 9, 9}};
        PageFile f = Tables.write(dir, "argmax", List.of("k", "o", "v", "w"), rows, 4096);
        ScanPipeline scan = ScanPipeline.over(f);
        RunCombine runs = scan.combineRuns("r", scan.col("k")).maxBy(scan.col("o"), scan.col("v"), scan.col("w"));
        Batch b = new Batch(f, 4);
        b.reset(0);
        runs.apply(b);

        assertThat(b.selected()).isEqualTo(1);
        assertThat(new long[] {b.computed(runs.slot(0).index())[0], b.computed(runs.slot(1).index())[0], b.computed(runs.slot(2).index())[0]})
                .containsExactly(5, 4, 1);
    }

    @Test
    void shouldCombinePartialsOfAnArgMaxOfSeveralValuesAlikeInEitherOrder() {
        Combine[] kinds = {Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE, Combine.ARG_MAX_VALUE, Combine.MIN};
        long[] partials = {5, 3, 100, 7, 5, 4, 1, 2, 4, 9, 9, 0}; // three partials of one group, four slots each
        for (int[] order : new int[][] {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}}) {
            LongAggTable t = new LongAggTable(4, 4, kinds);
            for (int p : order) {
                t.addAll(1, partials, p);
            }
            assertThat(t.sorted().row(0)).as("partials in order %s", java.util.Arrays.toString(order)).containsExactly(1, 5, 4, 1, 0);
        }
    }

    @Test
    void shouldLeaveAnAggregateAfterItAnsweringWhatTheAggregateAloneAnswersWhateverThePagesAndWorkers() {
        // runs of 1 to 7 rows, many crossing 64-row pages, so a run is split across pages, morsels and workers
        int n = 3_000;
        long[][] rows = new long[n][];
        long key = 0;
        for (int i = 0; i < n; i++) {
            if (i % 7 == 0 || i % 11 == 0) {
                key = (key * 31 + 17) % 500; // keys come back in later, non-adjacent runs too
            }
            rows[i] = new long[] {key, (i * 7919L) % 1000, (i * 104729L) % 977};
        }
        PageFile f = Tables.write(dir, "many", COLUMNS, rows, 512);
        assertThat(f.pageCount()).isGreaterThan(10);
        for (int workers = 1; workers <= 2; workers++) {
            AggregateResult alone = aggregate(f, workers, false);
            AggregateResult combined = aggregate(f, workers, true);

            assertThat(combined.rows()).isEqualTo(alone.rows());
            for (int r = 0; r < alone.rows(); r++) {
                assertThat(combined.row(r)).as("group %d at %d workers", alone.key(r), workers).containsExactly(alone.row(r));
            }
        }
    }

    private static AggregateResult aggregate(PageFile f, int workers, boolean combineRunsFirst) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            HashAggregate agg;
            if (combineRunsFirst) {
                RunCombine runs = scan.combineRuns("r", scan.col("k")).maxBy(scan.col("o"), scan.col("v")).min(scan.col("v")).max(scan.col("o"))
                        .sum(scan.col("v"));
                agg = HashAggregate.groupBy(runs.key(), 16).maxBy(runs.slot(0), runs.slot(1)).min(runs.slot(2)).max(runs.slot(3)).sum(runs.slot(4));
            } else {
                agg = HashAggregate.groupBy(scan.col("k"), 16).maxBy(scan.col("o"), scan.col("v")).min(scan.col("v")).max(scan.col("o"))
                        .sum(scan.col("v"));
            }
            s.run(scan.into(agg).pipeline("agg", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
            return agg.result(s);
        }
    }
}
