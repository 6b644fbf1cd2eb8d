package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.HashAggregate;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run combine, the deal by dictionary segment and the segment build answer what today's path answered (a hash
 * aggregate keyed by dictionary ids interned row by row) on the same rows, at 1 and 2 workers, with keys split across
 * runs, pages, morsels and workers, a null key among them; and the ids they give are the dictionary's own.
 */
class SegmentDealTest {

    private static final List<String> COLUMNS = List.of("ref", "id", "o", "v", "w");

    @TempDir
    Path dir;

    @Test
    void shouldAnswerWhatAnAggregateByDictionaryIdAnswersOnTheSameRows() {
        int keys = 2_000;
        String[] strings = new String[keys];
        for (int k = 0; k < keys; k++) {
            strings[k] = k == 0 ? null : "ns/workflow-" + (k * 7) + "/" + (k % 13);
        }
        // each worker's page strings hold every key, in one order: a row's reference is the same whichever worker reads it
        PageStrings reference = new PageStrings();
        long[] refs = new long[keys];
        for (int k = 0; k < keys; k++) {
            refs[k] = strings[k] == null ? PageStrings.NULL : add(reference, strings[k]);
        }
        StringIds todays = new StringIds();
        long[][] rows = new long[20_000][];
        int key = 1;
        for (int i = 0; i < rows.length; i++) {
            if (i % 3 == 0) {
                key = (key * 37 + 11) % keys; // runs of about three rows; each key comes back in later runs
            }
            rows[i] = new long[] {refs[key], todays.id(strings[key]), i, (i * 7919L) % 101, (i * 104729L) % 1_003};
        }
        PageFile f = write(rows);
        assertThat(f.pageCount()).isGreaterThan(20);

        for (int workers = 1; workers <= 2; workers++) {
            Map<String, List<Long>> expected = byString(today(f, workers), todays);
            StringIds built = new StringIds();
            built.id("interned before the build"); // a dictionary that already holds strings, as a second query's does
            AggregateResult r = bucketed(f, workers, reference, built);

            assertThat(byString(r, built)).as("at %d workers", workers).isEqualTo(expected);
            long[] ascending = r.rowKeys().clone();
            Arrays.sort(ascending);
            assertThat(r.rowKeys()).containsExactly(ascending);
            for (int i = 0; i < r.rows(); i++) {
                assertThat(built.id(built.string(r.key(i)))).isEqualTo(r.key(i));
            }
        }
    }

    @Test
    void shouldTurnASecondStringDealtByItsOwnSegmentIntoItsDictionaryId() {
        int keys = 1_500;
        int requests = 5_000;
        PageStrings keyStrings = new PageStrings();
        PageStrings requestStrings = new PageStrings();
        long[] keyRefs = new long[keys];
        long[] requestRefs = new long[requests];
        StringIds todays = new StringIds();
        long[] requestIds = new long[requests];
        for (int k = 0; k < keys; k++) {
            keyRefs[k] = add(keyStrings, "ns/wf-" + k + "/1");
        }
        for (int q = 0; q < requests; q++) {
            String request = q == 0 ? null : "request-" + (q * 31);
            requestRefs[q] = request == null ? PageStrings.NULL : add(requestStrings, request);
            requestIds[q] = todays.id(request);
        }
        long[][] rows = new long[12_000][];
        int key = 0;
        for (int i = 0; i < rows.length; i++) {
            if (i % 4 == 0) {
                key = (key * 53 + 7) % keys;
            }
            int q = (i * 7 + key) % requests;
            rows[i] = new long[] {keyRefs[key], todays.id("ns/wf-" + key + "/1"), i, requestRefs[q], requestIds[q]};
        }
        Path file = dir.resolve("requests.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("ref", "id", "o", "req", "reqId"), 1024)) {
            for (long[] row : rows) {
                w.append(row);
            }
        }
        PageFile f = PageFile.open(file);
        for (int workers = 1; workers <= 2; workers++) {
            Map<String, List<String>> expected;
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                HashAggregate agg = HashAggregate.groupBy(scan.col("id"), 16).maxBy(scan.col("o"), scan.col("reqId"));
                s.run(scan.into(agg).pipeline("today", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                expected = withStrings(agg.result(s), todays);
            }
            StringIds built = new StringIds();
            PageStrings[] byKey = new PageStrings[workers];
            PageStrings[] byRequest = new PageStrings[workers];
            Arrays.fill(byKey, keyStrings);
            Arrays.fill(byRequest, requestStrings);
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                RunCombine runs = scan.combineRuns("site", scan.col("ref")).maxBy(scan.col("o"), scan.col("req"));
                SegmentDeal deal = new SegmentDeal(runs, byKey, 64, 24, 1, byRequest);
                s.run(scan.into(deal).pipeline("bucketed", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);

                assertThat(withStrings(r, built)).as("at %d workers", workers).isEqualTo(expected);
                for (int i = 0; i < r.rows(); i++) {
                    assertThat(r.value(i, 1)).isEqualTo(built.id(built.string(r.value(i, 1))));
                }
            }
        }
    }

    /** Each group as key string -> [order, the value slot's string]. */
    private static Map<String, List<String>> withStrings(AggregateResult r, StringIds ids) {
        Map<String, List<String>> m = new HashMap<>();
        for (int i = 0; i < r.rows(); i++) {
            m.put(ids.string(r.key(i)), Arrays.asList(Long.toString(r.value(i, 0)), ids.string(r.value(i, 1))));
        }
        return m;
    }

    private static long add(PageStrings s, String string) {
        byte[] b = string.getBytes(StandardCharsets.UTF_8);
        return s.add(b, 0, b.length);
    }

    private PageFile write(long[][] rows) {
        Path file = dir.resolve("sites.btn");
        try (PageFileWriter w = new PageFileWriter(file, COLUMNS, 1024)) {
            for (long[] row : rows) {
                w.append(row);
            }
        }
        return PageFile.open(file);
    }

    private static AggregateResult today(PageFile f, int workers) {
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            HashAggregate agg = HashAggregate.groupBy(scan.col("id"), 16).maxBy(scan.col("o"), scan.col("v")).min(scan.col("w"));
            s.run(scan.into(agg).pipeline("today", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
            return agg.result(s);
        }
    }

    private static AggregateResult bucketed(PageFile f, int workers, PageStrings reference, StringIds ids) {
        PageStrings[] strings = new PageStrings[workers];
        Arrays.fill(strings, reference); // read only: every worker's page strings hold the same keys at the same references
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            RunCombine runs = scan.combineRuns("site", scan.col("ref")).maxBy(scan.col("o"), scan.col("v")).min(scan.col("w"));
            SegmentDeal deal = new SegmentDeal(runs, strings, 64, 24);
            s.run(scan.into(deal).pipeline("bucketed", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
            return deal.result(s, ids);
        }
    }

    private static Map<String, List<Long>> byString(AggregateResult r, StringIds ids) {
        Map<String, List<Long>> m = new HashMap<>();
        for (int i = 0; i < r.rows(); i++) {
            long[] row = r.row(i);
            m.put(ids.string(row[0]), List.of(row[1], row[2], row[3]));
        }
        return m;
    }
}
