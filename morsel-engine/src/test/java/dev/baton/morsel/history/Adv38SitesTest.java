package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Expr;
import dev.baton.morsel.operator.ColumnRef;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review (h/adv38): the answers/sites compositions of {@link SiteQueries} rebuilt on the same stages
 * (RunCombine → SegmentDeal → SegmentBuild) over rows as the decoders make them.
 */
class Adv38SitesTest {

    @TempDir
    Path dir;

    private static long add(PageStrings s, String string) {
        byte[] b = string.getBytes(StandardCharsets.UTF_8);
        return s.add(b, 0, b.length);
    }

    /**
     * One request answered twice, in two partitions at the same offset (3): partition 0 says failed "terminal: no" at 100,
     * partition 1 says completed at 50. The reference (HistoryScanReferenceIT.plainOutcomes, putIfAbsent) takes one whole
     * outcome. SiteQueries.answersQuery folds completed, reason and at as three separate ARG_MAX pairs over the same order
     * (-offset), each breaking the tie by its own value: the answer is completed=1 (partition 1) with partition 0's reason
     * and time, an outcome no record had.
     */
    @Test
    void anAnswerIsOneRecordsOutcomeEvenWhenTwoOutcomesTieOnOffset() {
        StringIds ids = new StringIds();
        long terminal = ids.id("terminal:");
        PageStrings requests = new PageStrings();
        long req = add(requests, "req-1");
        long[] fillers = new long[1023];
        for (int i = 0; i < fillers.length; i++) {
            fillers[i] = add(requests, "filler-" + i);
        }
        // columns as OutcomeDecoder makes them after the filter and project: ref, first (= -offset), completed, reason, at
        Path file = dir.resolve("outcomes.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("request", "first", "completed", "reason", "at"), 1024)) {
            w.append(new long[] {req, -3, 0, terminal, 100}); // partition 0, offset 3: failed
            for (int i = 0; i < fillers.length; i++) {
                w.append(new long[] {fillers[i], -10 - i, 1, 0, 1});
            }
            w.append(new long[] {req, -3, 1, StringIds.NULL, 50}); // partition 1, offset 3: completed (next page)
        }
        PageFile f = PageFile.open(file);
        assertThat(f.pageCount()).isGreaterThan(1); // the two outcomes on different pages
        for (int workers = 1; workers <= 2; workers++) {
            PageStrings[] byWorker = new PageStrings[workers];
            Arrays.fill(byWorker, requests);
            StringIds built = new StringIds();
            built.id("terminal:"); // same dictionary content as the query's: reason ids match
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                ColumnRef first = scan.col("first");
                RunCombine runs = scan.combineRuns("request", scan.col("request"))
                        .maxBy(first, scan.col("completed"))
                        .maxBy(first, scan.col("reason"))
                        .maxBy(first, scan.col("at"));
                SegmentDeal deal = new SegmentDeal(runs, byWorker, 64, 24);
                s.run(scan.into(deal).pipeline("answers", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);
                long reqId = built.id("req-1");
                int row = Arrays.binarySearch(r.keys(), 0, r.rows(), reqId);
                assertThat(row).isGreaterThanOrEqualTo(0);
                List<Long> answer = List.of(r.value(row, 1), r.value(row, 3), r.value(row, 5)); // completed, reason, at
                assertThat(answer).as("at %d workers: one record's outcome", workers)
                        .isIn(List.of(0L, terminal, 100L), List.of(1L, StringIds.NULL, 50L));
            }
        }
    }

    /**
     * Two keys whose bytes differ but which are both invalid UTF-8 and decode to the same String ("\uFFFD"). The
     * reference keys sites by new String(key, UTF_8) and so folds them into one site; the bucketed scan interns bytes, keeps two
     * rows, and SiteQueries.sites puts both into one HashMap under the same string: one row silently replaces the other.
     */
    @Test
    void twoInvalidUtf8KeysThatDecodeAlikeAreOneSiteAsTheReferenceHasThem() {
        StringIds ids = new StringIds();
        long a = ids.id(new byte[] {(byte) 0xff});
        long b = ids.id(new byte[] {(byte) 0xfe});
        assertThat(ids.string(a)).isEqualTo(ids.string(b)); // both "\uFFFD": the map of sites has one entry for two rows
        assertThat(a).as("one site for one key string").isEqualTo(b);
    }
}
