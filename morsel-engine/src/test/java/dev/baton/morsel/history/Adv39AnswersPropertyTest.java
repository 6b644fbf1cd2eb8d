package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Expr;
import dev.baton.morsel.operator.RangeFilter;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review (h/adv39): the answers composition as SiteQueries.answersQuery builds it (filter unmatched = 0,
 * first = 0 - order, ARG_MAX of completed, reason, at) over rows as OutcomeDecoder makes them, against a plain fold of
 * the first outcome by order: one request answered in several partitions at equal offsets, offset 0, partition 2^20-1,
 * offsets at the order's bound, a dictionary pre-filled so the requests' local indexes are dense or sparse.
 */
class Adv39AnswersPropertyTest {

    @TempDir
    Path dir;

    @Test
    void answersEqualAPlainFoldOfTheFirstOutcomeByOrder() throws Exception {
        int failures = 0;
        String first = null;
        for (int trial = 0; trial < 200; trial++) {
            SplittableRandom random = new SplittableRandom(1000 + trial);
            StringIds ids = new StringIds();
            int requests = 1 + random.nextInt(random.nextBoolean() ? 4 : 500);
            String[] pool = new String[requests];
            for (int i = 0; i < requests; i++) {
                pool[i] = "req-" + i + (random.nextInt(6) == 0 ? "\u00e9" : "");
            }
            int prefill = trial < 2 ? 600_000 : random.nextInt(3) == 0 ? random.nextInt(30_000) : 0;
            for (int i = 0, k = 0; i < prefill; i++) {
                ids.id("pre-" + i);
                if (k < requests && random.nextInt(Math.max(1, prefill / requests)) == 0) {
                    ids.id(pool[k++]);
                }
            }
            long[] reasons = {StringIds.NULL, ids.id("terminal:"), ids.id("cancelled:"), ids.id("x")};
            PageStrings strings = new PageStrings();
            Map<String, long[]> plain = new HashMap<>(); // request -> [order, completed, reason, at]
            Path file = dir.resolve("a-" + trial + ".btn");
            int partitions = 1 + random.nextInt(4);
            long[] offsets = new long[partitions];
            int[] partitionIds = new int[partitions];
            int records = 1 + random.nextInt(2_000);
            for (int p = 0; p < partitions; p++) {
                partitionIds[p] = random.nextInt(3) == 0 ? (1 << 20) - 1 - p : p;
                offsets[p] = random.nextInt(3) == 0 ? 0 : random.nextInt(3) == 0 ? (1L << 43) - 1 - 3L * records : random.nextLong(1 << 20);
            }
            boolean sameOffsets = random.nextBoolean(); // every partition from the same offset, step 1: ties on offset everywhere
            if (sameOffsets) {
                Arrays.fill(offsets, offsets[0]);
            }
            try (PageFileWriter w = new PageFileWriter(file, List.of("order", "request", "completed", "reason", "at", "unmatched"), 8 * (8 + random.nextInt(100)))) {
                int req = random.nextInt(requests);
                for (int r = 0; r < records; r++) {
                    if (random.nextInt(2) == 0) {
                        req = random.nextInt(requests);
                    }
                    int pi = random.nextInt(partitions);
                    long offset = offsets[pi]; // a partition's offsets ascend; partitions started alike tie across
                    offsets[pi] += sameOffsets ? 1 : 1 + random.nextInt(2);
                    boolean unmatched = random.nextInt(8) == 0;
                    boolean completed = random.nextBoolean();
                    long reason = completed ? StringIds.NULL : reasons[random.nextInt(reasons.length)];
                    long at = random.nextInt(5) == 0 ? random.nextLong() : random.nextLong(1000);
                    long order = SiteQueries.order(partitionIds[pi], offset);
                    byte[] b = pool[req].getBytes(StandardCharsets.UTF_8);
                    long ref = unmatched ? PageStrings.NULL : strings.add(b, 0, b.length);
                    w.append(new long[] {order, ref, completed ? 1 : 0, unmatched ? StringIds.NULL : reason, at, unmatched ? 1 : 0});
                    if (!unmatched) {
                        long[] e = plain.get(pool[req]);
                        if (e == null || order < e[0]) {
                            plain.put(pool[req], new long[] {order, completed ? 1 : 0, reason, at});
                        }
                    }
                }
            }
            PageFile f = PageFile.open(file);
            for (int workers = 1; workers <= 2; workers++) {
                try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                    ScanPipeline scan = ScanPipeline.over(f);
                    scan.filter(RangeFilter.between(scan.col("unmatched"), 0, 0));
                    var firstCol = scan.project("first", Expr.sub(Expr.lit(0), scan.col("order")));
                    RunCombine runs = scan.combineRuns("request", scan.col("request"))
                            .maxBy(firstCol, scan.col("completed"), scan.col("reason"), scan.col("at"));
                    PageStrings[] byWorker = new PageStrings[workers];
                    Arrays.fill(byWorker, strings);
                    SegmentDeal deal = new SegmentDeal(runs, byWorker, 16 + random.nextInt(3000), 40);
                    s.run(scan.into(deal).pipeline("answers", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1 + random.nextInt(3), 1), workers));
                    AggregateResult a = deal.result(s, ids);
                    Map<String, List<Long>> got = new HashMap<>();
                    for (int i = 0; i < a.rows(); i++) {
                        if (i > 0) {
                            assertThat(a.key(i)).isGreaterThan(a.key(i - 1));
                        }
                        got.put(ids.string(a.key(i)), List.of(-a.value(i, 0), a.value(i, 1), a.value(i, 2), a.value(i, 3)));
                    }
                    Map<String, List<Long>> want = new HashMap<>();
                    plain.forEach((k, e) -> want.put(k, List.of(e[0], e[1], e[2], e[3])));
                    if (!got.equals(want) || a.rows() != want.size()) {
                        failures++;
                        if (first == null) {
                            String diff = "";
                            for (String k : want.keySet()) {
                                if (!want.get(k).equals(got.get(k))) {
                                    diff = k + ": want " + want.get(k) + " got " + got.get(k);
                                    break;
                                }
                            }
                            first = "trial " + trial + " workers " + workers + " rows " + a.rows() + "/" + want.size() + " " + diff;
                        }
                    }
                }
            }
        }
        assertThat(failures).as(String.valueOf(first)).isZero();
    }
}
