package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.SiteRef;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageSource;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.TopicPageSource;
import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Expr;
import dev.baton.morsel.operator.RangeFilter;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.MorselTask;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review (h/adv42): the sites composition ({@link SiteQueries#sitesDeal}) fed page by page as a topic scan
 * feeds it (each worker's decoder told {@code pageStarts} before each page it decodes, so the page strings are cleared and
 * their page generation moves on), against a plain record-by-record fold. Hostile: pages past the index's growth points,
 * keys repeated across pages and workers, keys sharing hash bits or whole hashes, empty, null and ill-formed keys, two
 * dispatches of one site in one page, many pages per PageStrings instance, the page generation wrapping.
 */
class Adv42FoldTest {

    private static final HistoryKind[] KINDS = HistoryKind.values();
    private static final List<String> COLUMNS = List.of("order", "kind", "dispatched", "at", "site", "namespace", "request",
            "attempt", "queue", "type");

    /** A pre-encoded event and its fields. */
    record Ev(HistoryKind kind, String request, int attempt, String queue, String type, long at, byte[] value) {
    }

    /** One record: partition, offset, key bytes (null for a null key), event. */
    record Rec(int partition, long offset, byte[] key, Ev ev) {
    }

    private static final SchemaRegistry REGISTRY = SchemaRegistry.forUrl("mem://adv42", Map.of());
    private static final EventSerde<HistoryEvent> SERDE = EventSerde.of(HistoryEvent.class, REGISTRY);

    static Ev[] eventPool(SplittableRandom random, int n, int requests) {
        Ev[] pool = new Ev[n];
        for (int i = 0; i < n; i++) {
            HistoryKind kind = i % 3 == 0 ? HistoryKind.DISPATCHED : KINDS[random.nextInt(KINDS.length)];
            String request = random.nextInt(20) == 0 ? null : "req-" + random.nextInt(requests) + (random.nextInt(7) == 0 ? "\u00e9" : "");
            int attempt = random.nextInt(5);
            String queue = random.nextInt(6) == 0 ? null : "q" + random.nextInt(3);
            String type = random.nextInt(6) == 0 ? null : "t" + random.nextInt(3);
            long at = random.nextInt(5) == 0 ? random.nextLong() : random.nextLong(1000);
            boolean illFormed = random.nextInt(15) == 0;
            int bad = random.nextInt(3);
            if (illFormed) {
                request = "BAD\u0001" + random.nextInt(3) + "@@"; // "@@" replaced by ill-formed bytes below
            }
            HistoryEvent e = HistoryEvent.newBuilder().setKind(kind).setSite(new SiteRef("ns", "wf", "1")).setAttempt(attempt)
                    .setRequestId(request).setQueue(queue).setActivityType(type).setAtMillis(at).build();
            byte[] value = SERDE.encode(BatonTopics.HISTORY, e);
            if (illFormed) {
                byte[] marker = utf8(request);
                byte[][] replacements = {{(byte) 0xc3, (byte) 0x28}, {(byte) 0xff, (byte) 0x28}, {(byte) 0xed, (byte) 0xa0}};
                int at0 = indexOf(value, marker);
                assertThat(at0).isNotNegative();
                byte[] raw = marker.clone();
                raw[raw.length - 2] = replacements[bad][0];
                raw[raw.length - 1] = replacements[bad][1];
                System.arraycopy(raw, 0, value, at0, raw.length);
                request = new String(raw, StandardCharsets.UTF_8); // the decoded form, as Avro's reader reads it
            }
            pool[i] = new Ev(kind, request, attempt, queue, type, at, value);
        }
        return pool;
    }

    static int indexOf(byte[] a, byte[] b) {
        outer:
        for (int i = 0; i + b.length <= a.length; i++) {
            for (int j = 0; j < b.length; j++) {
                if (a[i + j] != b[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A page source whose pages are decoded by the driver just before the pipeline reads them. */
    static class Src implements PageSource {
        final long[][][] pages;

        Src(int pageCount) {
            pages = new long[pageCount][][];
        }

        @Override
        public int pageCount() {
            return pages.length;
        }

        @Override
        public long rowCount() {
            return 0;
        }

        @Override
        public int pageBytes() {
            return 0;
        }

        @Override
        public int rowsIn(int page) {
            return pages[page][0].length;
        }

        @Override
        public List<String> columns() {
            return COLUMNS;
        }

        @Override
        public LongBuffer page(int page, int column) {
            return LongBuffer.wrap(pages[page][column]);
        }
    }

    /** The key as a heap buffer (0), a slice of a larger array at an offset (1), or a direct buffer (2). */
    static ByteBuffer keyBuffer(byte[] key, int form) {
        if (key == null) {
            return null;
        }
        if (form == 1) {
            byte[] big = new byte[key.length + 7];
            Arrays.fill(big, (byte) 'Z');
            System.arraycopy(key, 0, big, 3, key.length);
            return ByteBuffer.wrap(big, 1, key.length + 4).slice().position(2).limit(2 + key.length);
        }
        if (form == 2) {
            ByteBuffer d = ByteBuffer.allocateDirect(key.length);
            d.put(key).flip();
            return d;
        }
        return ByteBuffer.wrap(key);
    }

    /** Key bytes as the plain fold names them: null for a null key. */
    private static String name(byte[] key) {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    /**
     * Runs the sites composition over {@code pages} (records in page order), page {@code p} on worker {@code owner[p]},
     * with per-worker PageStrings; {@code beforePage} may touch the page strings before a page is decoded. Returns a
     * description of the first difference from the plain fold, or null.
     */
    static String runSites(String label, List<List<Rec>> pages, int[] owner, int workers, PageHook beforePage) throws Exception {
        return runSites(label, pages, owner, workers, beforePage, Long.MIN_VALUE);
    }

    /** As above, with the scope's "from" filter (at >= fromMillis) before the composition, as sitesQuery adds it. */
    static String runSites(String label, List<List<Rec>> pages, int[] owner, int workers, PageHook beforePage, long fromMillis) throws Exception {
        SiteQueries queries = new SiteQueries(new ProjectedReader(REGISTRY, () -> LogProjections.HISTORY),
                new ProjectedReader(REGISTRY, () -> LogProjections.OUTCOME));
        StringIds ids = queries.dictionary();
        StringIds keyIds = queries.siteKeyDictionary();
        PageStrings[] keys = PageStrings.perWorker(workers);
        PageStrings[] requests = PageStrings.perWorkerLastOnly(workers);
        TopicPageSource.RowDecoder[] decoders = new TopicPageSource.RowDecoder[workers];
        for (int w = 0; w < workers; w++) {
            decoders[w] = queries.historyDecoder(keys[w], requests[w], false);
        }
        Src src = new Src(pages.size());
        ScanPipeline scan = ScanPipeline.over(src);
        if (fromMillis != Long.MIN_VALUE) {
            scan.filter(RangeFilter.between(scan.col("at"), fromMillis, Long.MAX_VALUE));
        }
        SegmentDeal deal = SiteQueries.sitesDeal(scan, keys, requests, 4096);
        MorselTask task = scan.into(deal).pipeline("sites", PipelineKind.SCAN, List.of(new Morsel(0, 0, Math.max(1, pages.size()), 0)), workers)
                .task();
        Map<String, Object[]> plain = new HashMap<>();
        long[] row = new long[COLUMNS.size()];
        for (int p = 0; p < pages.size(); p++) {
            int w = owner[p];
            if (beforePage != null) {
                beforePage.before(p, keys[w]);
            }
            decoders[w].pageStarts();
            List<long[]> rows = new ArrayList<>();
            for (Rec r : pages.get(p)) {
                ConsumerRecord<ByteBuffer, ByteBuffer> rec = new ConsumerRecord<>(BatonTopics.HISTORY, r.partition, r.offset,
                        keyBuffer(r.key, (int) (r.offset % 3)), ByteBuffer.wrap(r.ev.value));
                boolean wellFormed = r.key == null || Utf8Keys.wellFormed(r.key, 0, r.key.length);
                boolean decoded = decoders[w].decode(rec, row);
                assertThat(decoded).as("%s page %d: decoded iff key well-formed", label, p).isEqualTo(wellFormed);
                if (!decoded) {
                    continue;
                }
                rows.add(row.clone());
                Ev e = r.ev;
                if (e.at < fromMillis) {
                    continue;
                }
                long order = SiteQueries.order(r.partition, r.offset);
                Object[] s = plain.computeIfAbsent(name(r.key), x -> new Object[] {Long.MIN_VALUE, null, -1L, null, 0, null, null, Long.MAX_VALUE});
                if (order > (long) s[0]) {
                    s[0] = order;
                    s[1] = e.kind;
                }
                if (e.kind == HistoryKind.DISPATCHED) {
                    if (order > (long) s[2]) {
                        s[2] = order;
                        s[3] = e.request;
                        s[4] = e.attempt;
                        s[5] = e.queue;
                        s[6] = e.type;
                    }
                    s[7] = Math.min((long) s[7], e.at);
                }
            }
            long[][] cols = new long[COLUMNS.size()][rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                for (int c = 0; c < cols.length; c++) {
                    cols[c][i] = rows.get(i)[c];
                }
            }
            src.pages[p] = cols;
            if (!rows.isEmpty()) {
                task.run(w, new Morsel(p, p, p + 1, 0), () -> false);
            }
        }
        AggregateResult a;
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            a = deal.result(s, keyIds, ids);
        }
        Map<String, List<Object>> got = new HashMap<>();
        for (int i = 0; i < a.rows(); i++) {
            if (i > 0 && a.key(i) <= a.key(i - 1)) {
                return label + ": keys not ascending at row " + i;
            }
            boolean d = a.value(i, 2) >= 0;
            String k = keyIds.string(a.key(i));
            if (got.containsKey(k)) {
                return label + ": key twice in the answer: " + k;
            }
            got.put(k, Arrays.asList(a.value(i, 0), KINDS[(int) a.value(i, 1)], a.value(i, 2),
                    d ? ids.string(a.value(i, 3)) : null, d ? (int) a.value(i, 4) : 0, d ? ids.string(a.value(i, 5)) : null,
                    d ? ids.string(a.value(i, 6)) : null, d ? a.value(i, 7) : Long.MAX_VALUE));
        }
        lastGot = got;
        Map<String, List<Object>> want = new HashMap<>();
        plain.forEach((key, v) -> want.put(key, Arrays.asList(v)));
        if (got.equals(want)) {
            return null;
        }
        for (String key : want.keySet()) {
            if (!Objects.equals(want.get(key), got.get(key))) {
                return label + ": rows " + got.size() + "/" + want.size() + "; key " + printable(key) + ": want " + want.get(key) + " got " + got.get(key);
            }
        }
        for (String key : got.keySet()) {
            if (!want.containsKey(key)) {
                return label + ": extra key " + printable(key) + " got " + got.get(key);
            }
        }
        return label + ": differ";
    }

    /** The answer of the last {@link #runSites} run, key -> row. */
    static Map<String, List<Object>> lastGot;

    private static String printable(String s) {
        return s == null ? "<null>" : s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    @FunctionalInterface
    interface PageHook {
        void before(int page, PageStrings keys);
    }

    /** Splits records into pages of random sizes in [1, maxPage]. */
    static List<List<Rec>> paginate(List<Rec> recs, SplittableRandom random, int maxPage) {
        List<List<Rec>> pages = new ArrayList<>();
        for (int i = 0; i < recs.size(); ) {
            int n = 1 + random.nextInt(maxPage);
            pages.add(new ArrayList<>(recs.subList(i, Math.min(recs.size(), i + n))));
            i += n;
        }
        return pages;
    }

    static int[] owners(int pages, int workers, SplittableRandom random) {
        int[] o = new int[pages];
        for (int p = 0; p < pages; p++) {
            o[p] = workers == 1 ? 0 : random.nextInt(workers);
        }
        return o;
    }

    /** Records over a key pool: runs, random jumps back, partitions, offsets. */
    static List<Rec> records(SplittableRandom random, byte[][] keyPool, Ev[] events, int n, int partitions) {
        List<Rec> recs = new ArrayList<>(n);
        long[] next = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            next[p] = random.nextInt(3) == 0 ? 0 : random.nextLong(1L << 30);
        }
        int key = random.nextInt(keyPool.length);
        for (int r = 0; r < n; r++) {
            if (random.nextInt(3) != 0) {
                key = random.nextInt(keyPool.length);
            }
            int partition = random.nextInt(4) == 0 ? random.nextInt(partitions) : Math.floorMod(Arrays.hashCode(keyPool[key]), partitions);
            long offset = next[partition];
            next[partition] += 1 + (random.nextInt(10) == 0 ? random.nextInt(1000) : 0);
            recs.add(new Rec(partition, offset, keyPool[key], events[random.nextInt(events.length)]));
        }
        return recs;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void manySmallPagesKeysAcrossPagesAndWorkers() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int seed = 0; seed < 50; seed++) {
            SplittableRandom random = new SplittableRandom(4200 + seed);
            Ev[] events = eventPool(random, 300, 1 + random.nextInt(random.nextBoolean() ? 3 : 200));
            int keys = 1 + random.nextInt(random.nextBoolean() ? 6 : 2000);
            byte[][] pool = new byte[keys][];
            for (int k = 0; k < keys; k++) {
                int odd = random.nextInt(40);
                pool[k] = odd == 0 ? null : odd == 1 ? new byte[0] : odd == 2 ? new byte[] {(byte) 0xc3, (byte) 'x', (byte) k}
                        : utf8("ns/wf-" + k + (random.nextInt(5) == 0 ? "\u00e9\u4e2d\ud83d\ude00" : "") + "/1");
            }
            List<Rec> recs = records(random, pool, events, 1 + random.nextInt(20_000), 1 + random.nextInt(4));
            List<List<Rec>> pages = paginate(recs, random, 1 + random.nextInt(random.nextBoolean() ? 8 : 600));
            for (int workers = 1; workers <= 2; workers++) {
                long from = seed % 2 == 0 ? Long.MIN_VALUE : random.nextLong(1000);
                String f = runSites("seed " + (4200 + seed) + " workers " + workers + " pages " + pages.size() + " from " + from, pages,
                        owners(pages.size(), workers, random), workers, null, from);
                if (f != null) {
                    failures.add(f);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void pagesPastTheIndexGrowthPoints() throws Exception {
        List<String> failures = new ArrayList<>();
        long seed = 4242;
        SplittableRandom random = new SplittableRandom(seed);
        Ev[] events = eventPool(random, 2000, 50_000);
        // 105,000 distinct keys, each twice at random distances, in a few huge pages and on two workers
        int keys = 105_000;
        byte[][] pool = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            pool[k] = utf8("site/" + k);
        }
        List<Rec> recs = new ArrayList<>();
        int[] order = new int[2 * keys];
        for (int i = 0; i < order.length; i++) {
            order[i] = i % keys;
        }
        for (int i = order.length - 1; i > 0; i--) { // shuffle: repeats at random distances
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < order.length; i++) {
            recs.add(new Rec(0, i, pool[order[i]], events[random.nextInt(events.length)]));
        }
        for (int[] cut : new int[][] {{order.length}, {4_097, 8_200, order.length}}) {
            List<List<Rec>> pages = new ArrayList<>();
            int from = 0;
            for (int c : cut) {
                pages.add(recs.subList(from, c));
                from = c;
            }
            for (int workers = 1; workers <= 2; workers++) {
                String f = runSites("seed " + seed + " cut " + Arrays.toString(cut) + " workers " + workers, pages,
                        owners(pages.size(), workers, random), workers, null);
                if (f != null) {
                    failures.add(f);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    /** Keys whose hashes share their low 18 bits (one segment, one probe start up to a 4,096 x 2^6 index) or collide. */
    @Test
    void keysSharingHashBitsOrWholeHashes() throws Exception {
        long seed = 4343;
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> hostile = new ArrayList<>();
        int want = StringIds.hash(utf8("anchor"), 0, 6) & ((1 << 18) - 1);
        for (long i = 0; hostile.size() < 40; i++) {
            byte[] b = utf8("lo-" + i);
            if ((StringIds.hash(b, 0, b.length) & ((1 << 18) - 1)) == want) {
                hostile.add(b);
            }
        }
        // whole 32-bit collisions by birthday: ~5 pairs expected among 200,000 strings
        Map<Integer, byte[]> byHash = new HashMap<>();
        int collisions = 0;
        for (int i = 0; i < 300_000; i++) {
            byte[] b = utf8("c/" + i);
            byte[] other = byHash.putIfAbsent(StringIds.hash(b, 0, b.length), b);
            if (other != null) {
                hostile.add(b);
                hostile.add(other);
                collisions++;
            }
        }
        assertThat(collisions).as("seed %d: birthday collisions found", seed).isPositive();
        // and many keys sharing the low 12 bits: same segment, a quarter as many probe starts
        int want12 = want & 0xfff;
        for (long i = 0; hostile.size() < 3_000; i++) {
            byte[] b = utf8("m-" + i);
            if ((StringIds.hash(b, 0, b.length) & 0xfff) == want12) {
                hostile.add(b);
            }
        }
        byte[][] pool = hostile.toArray(byte[][]::new);
        Ev[] events = eventPool(random, 500, 300);
        List<String> failures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            List<Rec> recs = records(random, pool, events, 30_000, 2);
            List<List<Rec>> pages = paginate(recs, random, t < 3 ? 20_000 : 50);
            for (int workers = 1; workers <= 2; workers++) {
                String f = runSites("seed " + seed + " t " + t + " workers " + workers, pages, owners(pages.size(), workers, random), workers, null);
                if (f != null) {
                    failures.add(f);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    /** One site, one page: dispatch(req-A), other sites, dispatch(req-B) later (must win), an outcome before both. */
    @Test
    void twoDispatchesOfOneSiteInOnePageTheLaterWins() throws Exception {
        SplittableRandom random = new SplittableRandom(4444);
        Ev a = ev(HistoryKind.DISPATCHED, "req-A", 1, 5);
        Ev b = ev(HistoryKind.DISPATCHED, "req-B", 2, 3);
        Ev outcome = ev(KINDS[KINDS.length - 1] == HistoryKind.DISPATCHED ? KINDS[0] : KINDS[KINDS.length - 1], null, 0, 9);
        Ev other = ev(HistoryKind.DISPATCHED, "req-X", 0, 1);
        byte[] site = utf8("s");
        List<Rec> recs = new ArrayList<>();
        long off = 0;
        recs.add(new Rec(0, off++, site, outcome)); // the outcome first in offset order
        recs.add(new Rec(0, off++, site, a));
        for (int i = 0; i < 5; i++) {
            recs.add(new Rec(0, off++, utf8("o" + i), other));
        }
        recs.add(new Rec(0, off++, site, b));
        recs.add(new Rec(0, off++, utf8("o1"), other));
        recs.add(new Rec(0, off++, site, outcome));
        List<String> failures = new ArrayList<>();
        for (int workers = 1; workers <= 2; workers++) {
            String f = runSites("two dispatches workers " + workers, List.of(recs), new int[] {workers - 1}, workers, null);
            if (f != null) {
                failures.add(f);
            }
            // reversed: the later dispatch in offset order first in page order (a key written to two partitions)
            List<Rec> rev = new ArrayList<>();
            for (int i = 0; i < recs.size(); i++) {
                Rec r = recs.get(i);
                rev.add(new Rec(i % 2, 100 - i, r.key, r.ev));
            }
            f = runSites("two dispatches reversed workers " + workers, List.of(rev), new int[] {workers - 1}, workers, null);
            if (f != null) {
                failures.add(f);
            }
        }
        assertThat(random).isNotNull();
        assertThat(failures).isEmpty();
    }

    /** Long keys (up to 200 KB: the page strings' bytes and the buckets' bytes grow mid-page) among short and empty ones. */
    @Test
    void longKeysGrowTheBytesMidPage() throws Exception {
        long seed = 4646;
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] pool = new byte[40][];
        for (int k = 0; k < pool.length; k++) {
            int len = k == 0 ? 0 : k < 10 ? 1 + random.nextInt(10) : random.nextInt(200_000);
            byte[] b = new byte[len];
            for (int i = 0; i < len; i++) {
                b[i] = (byte) ('a' + random.nextInt(3));
            }
            if (len > 0) {
                b[len - 1] = (byte) ('0' + k % 10);
                b[0] = (byte) ('A' + k % 26);
            }
            pool[k] = b;
        }
        Ev[] events = eventPool(random, 100, 20);
        List<String> failures = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            List<Rec> recs = records(random, pool, events, 500, 2);
            List<List<Rec>> pages = paginate(recs, random, t == 0 ? 500 : 40);
            for (int workers = 1; workers <= 2; workers++) {
                String f = runSites("seed " + seed + " t " + t + " workers " + workers, pages, owners(pages.size(), workers, random), workers, null);
                if (f != null) {
                    failures.add(f);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    private static Ev ev(HistoryKind kind, String request, int attempt, long at) {
        HistoryEvent e = HistoryEvent.newBuilder().setKind(kind).setSite(new SiteRef("ns", "wf", "1")).setAttempt(attempt)
                .setRequestId(request).setQueue("q").setActivityType("t").setAtMillis(at).build();
        return new Ev(kind, request, attempt, "q", "t", at, SERDE.encode(BatonTopics.HISTORY, e));
    }

    /**
     * A PageStrings' index tells pages apart by a generation that starts again after ~2^31 clears (the index then
     * emptied): a page whose generation equals an early page's must find neither that page's strings nor, in the deal,
     * its rows (the deal keys its rows by the never-repeating page number; adv42 found the rows of a page with a repeated
     * number folded into, and lost, when the deal used the generation).
     */
    @Test
    void pageGenerationWrapDoesNotFoldIntoAnEarlierPagesRow() throws Exception {
        Ev d1 = ev(HistoryKind.DISPATCHED, "req-1", 1, 5);
        // two keys in different segments
        byte[] x = utf8("x");
        byte[] y = null;
        for (int i = 0; y == null; i++) {
            byte[] c = utf8("y" + i);
            if (StringIds.segmentOf(StringIds.hash(c, 0, c.length)) != StringIds.segmentOf(StringIds.hash(x, 0, x.length))) {
                y = c;
            }
        }
        List<List<Rec>> pages = List.of(List.of(new Rec(0, 0, x, d1)), List.of(new Rec(0, 1, y, d1)));
        String f = runSites("generation wrap", pages, new int[] {0, 0}, 1, (p, keys) -> {
            if (p == 1) {
                // the generations cycle through 1 .. 2^31 - 2: with the clear pageStarts makes, the second page has the first's
                for (long i = 0; i < Integer.MAX_VALUE - 2L; i++) {
                    keys.clear();
                }
            }
        });
        assertThat(f).isNull();
    }

    @Test
    void answersPageByPage() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int seed = 0; seed < 40; seed++) {
            SplittableRandom random = new SplittableRandom(4500 + seed);
            for (int workers = 1; workers <= 2; workers++) {
                String f = runAnswers("seed " + (4500 + seed) + " workers " + workers, random, workers);
                if (f != null) {
                    failures.add(f);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    private static String runAnswers(String label, SplittableRandom random, int workers) throws Exception {
        StringIds ids = new StringIds();
        int requests = 1 + random.nextInt(random.nextBoolean() ? 4 : 3000);
        String[] pool = new String[requests];
        for (int i = 0; i < requests; i++) {
            pool[i] = random.nextInt(50) == 0 ? "" : "req-" + i + (random.nextInt(6) == 0 ? "\u00e9" : "");
        }
        long[] reasons = {StringIds.NULL, ids.id("terminal:"), ids.id("cancelled:"), ids.id("x")};
        PageStrings[] strings = PageStrings.perWorkerLastOnly(workers);
        List<String> cols = List.of("order", "request", "completed", "reason", "at", "unmatched");
        int n = 1 + random.nextInt(20_000);
        int maxPage = 1 + random.nextInt(random.nextBoolean() ? 10 : 2000);
        List<long[][]> rawPages = new ArrayList<>(); // per page: per record {poolIndex or -1, order, completed, reasonIdx, at, unmatched}
        for (int i = 0; i < n; ) {
            int m = Math.min(n - i, 1 + random.nextInt(maxPage));
            long[][] pg = new long[m][];
            int q = random.nextInt(requests);
            for (int r = 0; r < m; r++) {
                if (random.nextInt(3) != 0) {
                    q = random.nextInt(requests);
                }
                long order = SiteQueries.order(random.nextInt(3), i + r); // offsets unique per partition: i + r is unique
                pg[r] = new long[] {random.nextInt(30) == 0 ? -1 : q, order, random.nextInt(2), random.nextInt(4), random.nextLong(1000),
                        random.nextInt(8) == 0 ? 1 : 0};
            }
            rawPages.add(pg);
            i += m;
        }
        Src src = new Src(rawPages.size()) {
            @Override
            public List<String> columns() {
                return cols;
            }
        };
        ScanPipeline scan = ScanPipeline.over(src);
        scan.filter(RangeFilter.between(scan.col("unmatched"), 0, 0));
        dev.baton.morsel.operator.ColumnRef first = scan.project("first", Expr.sub(Expr.lit(0), scan.col("order")));
        RunCombine runs = scan.combineRuns("request", scan.col("request")).maxBy(first, scan.col("completed"), scan.col("reason"), scan.col("at"));
        SegmentDeal deal = new SegmentDeal(runs, strings, 4096, 40);
        MorselTask task = scan.into(deal).pipeline("answers", PipelineKind.SCAN, List.of(new Morsel(0, 0, rawPages.size(), 0)), workers).task();
        Map<String, long[]> plain = new HashMap<>();
        int[] owner = owners(rawPages.size(), workers, random);
        for (int p = 0; p < rawPages.size(); p++) {
            int w = owner[p];
            strings[w].clear();
            long[][] pg = rawPages.get(p);
            long[][] c = new long[cols.size()][pg.length];
            for (int r = 0; r < pg.length; r++) {
                long[] x = pg[r];
                boolean unmatched = x[5] == 1;
                String req = x[0] < 0 ? null : pool[(int) x[0]];
                long ref = unmatched || req == null ? PageStrings.NULL : strings[w].addDecodedForm(utf8(req), 0, utf8(req).length);
                c[0][r] = x[1];
                c[1][r] = ref;
                c[2][r] = x[2];
                c[3][r] = unmatched ? StringIds.NULL : reasons[(int) x[3]];
                c[4][r] = x[4];
                c[5][r] = x[5];
                if (!unmatched) {
                    long[] s = plain.computeIfAbsent(req, k -> new long[] {Long.MIN_VALUE, 0, 0, 0});
                    if (-x[1] > s[0]) {
                        s[0] = -x[1];
                        s[1] = x[2];
                        s[2] = reasons[(int) x[3]];
                        s[3] = x[4];
                    }
                }
            }
            src.pages[p] = c;
            task.run(w, new Morsel(p, p, p + 1, 0), () -> false);
        }
        AggregateResult a;
        try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
            a = deal.result(s, ids);
        }
        Map<String, List<Long>> got = new HashMap<>();
        for (int i = 0; i < a.rows(); i++) {
            got.put(ids.string(a.key(i)), List.of(a.value(i, 0), a.value(i, 1), a.value(i, 2), a.value(i, 3)));
        }
        Map<String, List<Long>> want = new HashMap<>();
        plain.forEach((k, v) -> want.put(k, List.of(v[0], v[1], v[2], v[3])));
        if (got.equals(want)) {
            return null;
        }
        for (String k : want.keySet()) {
            if (!Objects.equals(want.get(k), got.get(k))) {
                return label + ": rows " + got.size() + "/" + want.size() + " key " + printable(k) + " want " + want.get(k) + " got " + got.get(k);
            }
        }
        return label + ": extra keys " + got.size() + "/" + want.size();
    }
}
