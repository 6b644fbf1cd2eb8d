package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Expr;
import dev.baton.morsel.operator.ColumnRef;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Disabled;
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
     * outcome. SiteQueries.answersQuery folded completed, reason and at as ARG_MAX slots over -offset, each breaking the
     * tie by its own value: the answer was completed=1 (partition 1) with partition 0's reason and time, an outcome no
     * record had. Fixed (h/scan39): the decoder's order is the offset with the partition below it ({@link
     * SiteQueries#order}), so the two never tie; the rows below carry the order as the decoder makes it. Which record wins
     * the reference leaves to read order, so the test asks for one whole record, not which one.
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
            w.append(new long[] {req, -SiteQueries.order(0, 3), 0, terminal, 100}); // partition 0, offset 3: failed
            for (int i = 0; i < fillers.length; i++) {
                w.append(new long[] {fillers[i], -SiteQueries.order(0, 10 + i), 1, 0, 1});
            }
            w.append(new long[] {req, -SiteQueries.order(1, 3), 1, StringIds.NULL, 50}); // partition 1, offset 3: completed (next page)
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
                        .maxBy(first, scan.col("completed"), scan.col("reason"), scan.col("at"));
                SegmentDeal deal = new SegmentDeal(runs, byWorker, 64, 24);
                s.run(scan.into(deal).pipeline("answers", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);
                long reqId = built.id("req-1");
                int row = Arrays.binarySearch(r.keys(), 0, r.rows(), reqId);
                assertThat(row).isGreaterThanOrEqualTo(0);
                List<Long> answer = List.of(r.value(row, 1), r.value(row, 2), r.value(row, 3)); // completed, reason, at
                assertThat(answer).as("at %d workers: one record's outcome", workers)
                        .isIn(List.of(0L, terminal, 100L), List.of(1L, StringIds.NULL, 50L));
            }
        }
    }

    /**
     * Two keys whose bytes differ but which are both invalid UTF-8 and decode to the same String ("\uFFFD"). The
     * reference keys sites by new String(key, UTF_8) and so folds them into one site; the bucketed scan interned bytes, kept two
     * rows, and SiteQueries.sites put both into one HashMap under the same string: one row silently replaced the other.
     * Decided (issue 30, h/decode39): no Baton write has such a key (the streams app writes a site's records under its
     * SiteKey's UTF-8), so such a record is undecodable for the history queries, counted as replay reports undecodable
     * values, and the reference (HistoryScanReferenceIT) leaves it out too.
     */
    @Test
    void twoInvalidUtf8KeysAreUndecodableRecordsNotOneSite() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv38-keys", Map.of());
        byte[] value = EventSerde.of(HistoryEvent.class, registry).encode(BatonTopics.HISTORY, HistoryEvent.newBuilder()
                .setKind(HistoryKind.DISPATCHED).setSite(new SiteRef("ns", "wf", "1")).setAttempt(1).setRequestId("r").setAtMillis(5L).build());
        SiteQueries queries = new SiteQueries(new ProjectedReader(registry, () -> LogProjections.HISTORY),
                new ProjectedReader(registry, () -> LogProjections.OUTCOME));
        TopicPageSource.RowDecoder decoder = queries.historyDecoder(new PageStrings(), new PageStrings(), false);
        decoder.pageStarts();
        long offset = 0;
        for (byte[] key : List.of(new byte[] {'n', 's', '/', (byte) 0xff, '/', '1'}, new byte[] {'n', 's', '/', (byte) 0xfe, '/', '1'})) {
            ConsumerRecord<ByteBuffer, ByteBuffer> rec = new ConsumerRecord<>(BatonTopics.HISTORY, 0, offset++, ByteBuffer.wrap(key), ByteBuffer.wrap(value));
            assertThat(decoder.decode(rec, new long[10])).as("key %s", Arrays.toString(key)).isFalse();
        }
        assertThat(queries.undecodable()).isEqualTo(2);
        ConsumerRecord<ByteBuffer, ByteBuffer> wellFormed = new ConsumerRecord<>(BatonTopics.HISTORY, 0, offset,
                ByteBuffer.wrap("ns/wf-\u00e9/1".getBytes(StandardCharsets.UTF_8)), ByteBuffer.wrap(value));
        assertThat(decoder.decode(wellFormed, new long[10])).isTrue();
        assertThat(queries.undecodable()).isEqualTo(2);
    }

    /**
     * The sites side of the same tie: one site key dispatched in two partitions at the same offset (5), request "req-b"
     * attempt 2 queue q-hi in one, request "req-a" attempt 1 queue q-lo in the other. SiteQueries.sitesQuery folds request,
     * attempt, queue and type as separate ARG_MAX pairs over dispatch_order (the offset): each breaks the tie by its own
     * value (the request by a PageStrings reference in RunCombine, by a (worker, segment, row) handle in SegmentBuild), so the
     * site's "latest dispatch" mixed the two: the reference's plainSites keeps one dispatch whole. Fixed (h/scan39) as the
     * answers' tie above: the rows carry the order the decoder makes, which two records never share.
     */
    @Test
    void aSitesLatestDispatchIsOneDispatchEvenWhenTwoTieOnOffset() {
        StringIds built = new StringIds();
        long qHi = built.id("q-hi");
        long qLo = built.id("q-lo");
        assertThat(qHi).isNotEqualTo(qLo);
        PageStrings keys = new PageStrings();
        PageStrings requests = new PageStrings();
        long site = add(keys, "ns/wf/act");
        long reqB = add(requests, "req-b"); // reference 0: the smaller reference
        long reqA = add(requests, "req-a");
        long[] fillers = new long[1023];
        for (int i = 0; i < fillers.length; i++) {
            fillers[i] = add(keys, "ns/filler-" + i + "/1");
        }
        // columns: site, order (offset for a dispatch), request ref, attempt, queue id
        Path file = dir.resolve("sites.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("site", "order", "request", "attempt", "queue"), 1024)) {
            w.append(new long[] {site, SiteQueries.order(0, 5), reqB, 2, qHi}); // partition 0, offset 5
            for (int i = 0; i < fillers.length; i++) {
                w.append(new long[] {fillers[i], SiteQueries.order(0, 10 + i), PageStrings.NULL, 0, 0});
            }
            w.append(new long[] {site, SiteQueries.order(1, 5), reqA, 1, qLo}); // partition 1, offset 5
        }
        PageFile f = PageFile.open(file);
        assertThat(f.pageCount()).isGreaterThan(1);
        try (MorselScheduler s = new MorselScheduler(1, 1, MorselMetrics.noop())) {
            ScanPipeline scan = ScanPipeline.over(f);
            ColumnRef order = scan.col("order");
            RunCombine runs = scan.combineRuns("site", scan.col("site"))
                    .maxBy(order, scan.col("request"), scan.col("attempt"), scan.col("queue"));
            SegmentDeal deal = new SegmentDeal(runs, new PageStrings[] {keys}, 64, 24, 1, new PageStrings[] {requests});
            s.run(scan.into(deal).pipeline("sites", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), 1));
            AggregateResult r = deal.result(s, built);
            int row = Arrays.binarySearch(r.keys(), 0, r.rows(), built.id("ns/wf/act"));
            assertThat(row).isGreaterThanOrEqualTo(0);
            List<Object> dispatch = Arrays.asList(built.string(r.value(row, 1)), r.value(row, 2), built.string(r.value(row, 3)));
            assertThat(dispatch).as("request, attempt, queue of one dispatch")
                    .isIn(Arrays.asList("req-b", 2L, "q-hi"), Arrays.asList("req-a", 1L, "q-lo"));
        }
    }

    /**
     * Odd keys through RunCombine → SegmentDeal → SegmentBuild at 1 and 2 workers, against a plain fold: null, empty, a key
     * of 70,000 bytes (beyond PageStrings' first 64 KiB arena), a non-ASCII one of 80,000 bytes, and a key that is a prefix
     * of another. Rows in runs, keys coming back in later runs and pages.
     */
    @Test
    void oddKeysFoldAsAPlainLoopFoldsThem() {
        String[] strings = {null, "", "x".repeat(70_000), "\u00e9".repeat(40_000), "ab", "abc", "ns/wf/1"};
        PageStrings page = new PageStrings();
        long[] refs = new long[strings.length];
        for (int k = 0; k < strings.length; k++) {
            refs[k] = strings[k] == null ? PageStrings.NULL : add(page, strings[k]);
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(38);
        java.util.Map<String, long[]> expected = new java.util.HashMap<>();
        Path file = dir.resolve("odd.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("ref", "o", "v", "m"), 1024)) {
            int key = 0;
            for (int i = 0; i < 5_000; i++) {
                if (random.nextInt(3) == 0) {
                    key = random.nextInt(strings.length);
                }
                long v = random.nextLong(1_000);
                long m = random.nextLong(1_000_000);
                w.append(new long[] {refs[key], i, v, m});
                long[] e = expected.computeIfAbsent(strings[key], x -> new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE});
                if (i > e[0]) {
                    e[0] = i;
                    e[1] = v;
                }
                e[2] = Math.min(e[2], m);
            }
        }
        PageFile f = PageFile.open(file);
        for (int workers = 1; workers <= 2; workers++) {
            PageStrings[] byWorker = new PageStrings[workers];
            Arrays.fill(byWorker, page);
            StringIds built = new StringIds();
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                RunCombine runs = scan.combineRuns("k", scan.col("ref")).maxBy(scan.col("o"), scan.col("v")).min(scan.col("m"));
                SegmentDeal deal = new SegmentDeal(runs, byWorker, 64, 24);
                s.run(scan.into(deal).pipeline("odd", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);
                java.util.Map<String, List<Long>> got = new java.util.HashMap<>();
                for (int i = 0; i < r.rows(); i++) {
                    got.put(built.string(r.key(i)), List.of(r.value(i, 0), r.value(i, 1), r.value(i, 2)));
                }
                java.util.Map<String, List<Long>> want = new java.util.HashMap<>();
                expected.forEach((k, e) -> want.put(k, List.of(e[0], e[1], e[2])));
                assertThat(got).as("at %d workers", workers).isEqualTo(want);
            }
        }
    }

    /**
     * A segment past LongAggTable's dense keys: the dictionary already holds 70,000 strings of segment 0 (a previous
     * query's), so this query's keys of segment 0 get local indexes above 65,536 beside ones it interned before; rows of
     * both kinds, some keys coming back, at 1 and 2 workers.
     */
    @Test
    void aSegmentBeyondTheDenseKeysFoldsAsAPlainLoop() {
        List<String> segment0 = new java.util.ArrayList<>();
        for (int i = 0; segment0.size() < 70_100; i++) {
            byte[] b = ("s-" + i).getBytes(StandardCharsets.UTF_8);
            if (StringIds.segmentOf(StringIds.hash(b, b.length)) == 0) {
                segment0.add("s-" + i);
            }
        }
        // keys: 50 interned early (locals < 65,536) and 50 late (locals > 65,536), all of segment 0
        List<String> keys = new java.util.ArrayList<>(segment0.subList(0, 50));
        keys.addAll(segment0.subList(70_050, 70_100));
        PageStrings page = new PageStrings();
        long[] refs = new long[keys.size()];
        for (int k = 0; k < keys.size(); k++) {
            refs[k] = add(page, keys.get(k));
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(3838);
        java.util.Map<String, List<Long>> want = new java.util.HashMap<>();
        Path file = dir.resolve("dense.btn");
        try (PageFileWriter w = new PageFileWriter(file, List.of("ref", "o", "v"), 1024)) {
            for (int i = 0; i < 4_000; i++) {
                int k = random.nextInt(keys.size());
                long v = random.nextLong(1_000_000);
                w.append(new long[] {refs[k], i, v});
                want.put(keys.get(k), List.of((long) i, v));
            }
        }
        PageFile f = PageFile.open(file);
        for (int workers = 1; workers <= 2; workers++) {
            StringIds built = new StringIds();
            for (String s0 : segment0.subList(50, 70_050)) {
                built.id(s0);
            }
            for (String s0 : segment0.subList(0, 50)) { // these get locals 70,000..70,049; the late ones come after
                built.id(s0);
            }
            PageStrings[] byWorker = new PageStrings[workers];
            Arrays.fill(byWorker, page);
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                RunCombine runs = scan.combineRuns("k", scan.col("ref")).maxBy(scan.col("o"), scan.col("v"));
                SegmentDeal deal = new SegmentDeal(runs, byWorker, 64, 24);
                s.run(scan.into(deal).pipeline("dense", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);
                java.util.Map<String, List<Long>> got = new java.util.HashMap<>();
                for (int i = 0; i < r.rows(); i++) {
                    got.put(built.string(r.key(i)), List.of(r.value(i, 0), r.value(i, 1)));
                }
                assertThat(got).as("at %d workers", workers).isEqualTo(want);
                long[] ascending = Arrays.copyOf(r.keys(), r.rows());
                Arrays.sort(ascending);
                assertThat(Arrays.copyOf(r.keys(), r.rows())).containsExactly(ascending);
            }
        }
    }

    /**
     * Two different keys with the same StringIds.hash (found by brute force, so the same segment and the same PageStrings
     * hash), alternating in runs, adjacent to each other and across pages, at 1 and 2 workers.
     */
    @Test
    void twoKeysWithEqualHashesStayTwoSites() {
        java.util.Map<Integer, String> seen = new java.util.HashMap<>();
        String a = null;
        String b = null;
        for (int i = 0; a == null; i++) {
            String k = "ns/wf-" + i + "/act";
            byte[] bytes = k.getBytes(StandardCharsets.UTF_8);
            String other = seen.putIfAbsent(StringIds.hash(bytes, bytes.length), k);
            if (other != null) {
                a = other;
                b = k;
            }
        }
        PageStrings page = new PageStrings();
        long ra = add(page, a);
        long rb = add(page, b);
        long ra2 = add(page, a); // not the last string added: a second reference to a
        assertThat(page.hash(ra)).isEqualTo(page.hash(rb));
        Path file = dir.resolve("collide.btn");
        long[] sums = new long[2];
        try (PageFileWriter w = new PageFileWriter(file, List.of("ref", "v"), 1024)) {
            for (int i = 0; i < 3_000; i++) {
                boolean isA = (i / 2) % 3 != 1;
                w.append(new long[] {isA ? (i % 5 == 0 ? ra2 : ra) : rb, i});
                sums[isA ? 0 : 1] += i;
            }
        }
        PageFile f = PageFile.open(file);
        for (int workers = 1; workers <= 2; workers++) {
            PageStrings[] byWorker = new PageStrings[workers];
            Arrays.fill(byWorker, page);
            StringIds built = new StringIds();
            try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                RunCombine runs = scan.combineRuns("k", scan.col("ref")).sum(scan.col("v"));
                SegmentDeal deal = new SegmentDeal(runs, byWorker, 64, 24);
                s.run(scan.into(deal).pipeline("collide", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 2, 1), workers));
                AggregateResult r = deal.result(s, built);
                java.util.Map<String, Long> got = new java.util.HashMap<>();
                for (int i = 0; i < r.rows(); i++) {
                    got.put(built.string(r.key(i)), r.value(i, 0));
                }
                assertThat(got).as("at %d workers (%s, %s)", workers, a, b).isEqualTo(java.util.Map.of(a, sums[0], b, sums[1]));
            }
        }
    }
}
