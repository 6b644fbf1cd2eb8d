package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

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
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review (h/adv39): random histories through the real HistoryDecoder, then the sites composition as
 * SiteQueries.sitesQuery builds it (same expressions and stages), at 1 and 2 workers and small pages, against a plain
 * record-by-record fold by order (offset << 20 | partition): keys in several partitions, offsets near 0, partition
 * 2^20-1, dictionaries pre-filled so local indexes are dense or sparse.
 */
class Adv39SitesPropertyTest {

    @TempDir
    Path dir;

    private static final HistoryKind[] KINDS = HistoryKind.values();

    @Test
    void sitesEqualAPlainFoldOnRandomHistories() throws Exception {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv39-prop", Map.of());
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        int failures = 0;
        String first = null;
        for (int trial = 0; trial < 200; trial++) {
            SplittableRandom random = new SplittableRandom(trial);
            SiteQueries queries = new SiteQueries(new ProjectedReader(registry, () -> LogProjections.HISTORY),
                    new ProjectedReader(registry, () -> LogProjections.OUTCOME));
            StringIds ids = queries.dictionary();
            StringIds keyIds = queries.siteKeyDictionary();
            int prefill = trial < 3 ? 700_000 + trial * 300_000 : random.nextInt(3) == 0 ? random.nextInt(40_000) : 0;
            int keys = 1 + random.nextInt(random.nextBoolean() ? 5 : 400);
            String[] keyPool = new String[keys];
            for (int k = 0; k < keys; k++) {
                keyPool[k] = "ns/wf-" + k + (random.nextInt(5) == 0 ? "\u00e9\u4e2d\ud83d\ude00" : "") + "/1";
            }
            // some keys interned before, some among, the rest after the prefill: local indexes sparse or dense
            for (int i = 0, k = 0; i < prefill; i++) {
                ids.id("pre-" + i);
                keyIds.id("pre-" + i);
                if (k < keys && random.nextInt(Math.max(1, prefill / keys)) == 0 && random.nextBoolean()) {
                    keyIds.id(keyPool[k++]);
                }
            }
            PageStrings keyStrings = new PageStrings();
            PageStrings requestStrings = new PageStrings();
            TopicPageSource.RowDecoder decoder = queries.historyDecoder(keyStrings, requestStrings, false);
            decoder.pageStarts();
            int records = 1 + random.nextInt(3_000);
            int partitions = 1 + random.nextInt(4);
            long[] nextOffset = new long[partitions];
            int[] partitionIds = new int[partitions];
            for (int p = 0; p < partitions; p++) {
                partitionIds[p] = random.nextInt(3) == 0 ? (1 << 20) - 1 - p : p;
                nextOffset[p] = random.nextInt(4) == 0 ? 0 : random.nextInt(3) == 0 ? (1L << 43) - 1 - 1001L * records : random.nextLong(1L << 30);
            }
            // plain fold: key -> [lastOrder, lastKind, dispatchOrder, request, attempt, queue, type, firstAt]
            Map<String, Object[]> plain = new HashMap<>();
            Path file = dir.resolve("h-" + trial + ".btn");
            List<String> columns = List.of("order", "kind", "dispatched", "at", "site", "namespace", "request", "attempt", "queue", "type");
            int pageBytes = 8 * (8 + random.nextInt(200));
            try (PageFileWriter w = new PageFileWriter(file, columns, pageBytes)) {
                int key = random.nextInt(keys);
                for (int r = 0; r < records; r++) {
                    if (random.nextInt(3) == 0) {
                        key = random.nextInt(keys);
                    }
                    int pi = random.nextInt(4) == 0 ? random.nextInt(partitions) : Math.floorMod(keyPool[key].hashCode(), partitions);
                    int partition = partitionIds[pi];
                    long offset = nextOffset[pi];
                    nextOffset[pi] += 1 + (random.nextInt(10) == 0 ? random.nextInt(1000) : 0);
                    HistoryKind kind = KINDS[random.nextInt(KINDS.length)];
                    boolean dispatch = kind == HistoryKind.DISPATCHED;
                    String request = "req-" + random.nextInt(50);
                    int attempt = random.nextInt(5);
                    String queue = random.nextInt(6) == 0 ? null : "q" + random.nextInt(3);
                    String type = random.nextInt(6) == 0 ? null : "t" + random.nextInt(3);
                    long at = random.nextInt(5) == 0 ? random.nextLong() : random.nextLong(1000);
                    HistoryEvent e = HistoryEvent.newBuilder().setKind(kind).setSite(new SiteRef("ns", "wf", "1")).setAttempt(attempt)
                            .setRequestId(request).setQueue(queue).setActivityType(type).setAtMillis(at).build();
                    byte[] value = serde.encode(BatonTopics.HISTORY, e);
                    ConsumerRecord<ByteBuffer, ByteBuffer> rec = new ConsumerRecord<>(BatonTopics.HISTORY, partition, offset,
                            ByteBuffer.wrap(keyPool[key].getBytes(StandardCharsets.UTF_8)), ByteBuffer.wrap(value));
                    long[] row = new long[10];
                    assertThat(decoder.decode(rec, row)).isTrue();
                    w.append(row);
                    long order = SiteQueries.order(partition, offset);
                    Object[] s = plain.computeIfAbsent(keyPool[key], x -> new Object[] {Long.MIN_VALUE, null, -1L, null, 0, null, null, Long.MAX_VALUE});
                    if (order > (long) s[0]) {
                        s[0] = order;
                        s[1] = kind;
                    }
                    if (dispatch) {
                        if (order > (long) s[2]) {
                            s[2] = order;
                            s[3] = request;
                            s[4] = attempt;
                            s[5] = queue;
                            s[6] = type;
                        }
                        s[7] = Math.min((long) s[7], at);
                    }
                }
            }
            PageFile f = PageFile.open(file);
            for (int workers = 1; workers <= 2; workers++) {
                // a fresh dictionary state per run is not possible (the decoder interned queues into ids); the second run
                // re-interns the same keys: ids then already exist, which is the dense case
                try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                    ScanPipeline scan = ScanPipeline.over(f);
                    PageStrings[] k = new PageStrings[workers];
                    PageStrings[] q = new PageStrings[workers];
                    Arrays.fill(k, keyStrings);
                    Arrays.fill(q, requestStrings);
                    SegmentDeal deal = SiteQueries.sitesDeal(scan, k, q, 16 + random.nextInt(5000)); // the query's own composition
                    s.run(scan.into(deal).pipeline("sites", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1 + random.nextInt(3), 1), workers));
                    AggregateResult a = deal.result(s, keyIds, ids); // as the sites query builds it
                    Map<String, List<Object>> got = new TreeMap<>();
                    for (int i = 0; i < a.rows(); i++) {
                        if (i > 0) {
                            assertThat(a.key(i)).isGreaterThan(a.key(i - 1));
                        }
                        boolean d = a.value(i, 2) >= 0;
                        got.put(keyIds.string(a.key(i)), Arrays.asList(a.value(i, 0), KINDS[(int) a.value(i, 1)], a.value(i, 2),
                                d ? ids.string(a.value(i, 3)) : null, d ? (int) a.value(i, 4) : 0, d ? ids.string(a.value(i, 5)) : null,
                                d ? ids.string(a.value(i, 6)) : null, d ? a.value(i, 7) : Long.MAX_VALUE));
                    }
                    Map<String, List<Object>> want = new TreeMap<>();
                    plain.forEach((key, v) -> want.put(key, Arrays.asList(v)));
                    if (!got.equals(want)) {
                        failures++;
                        if (first == null) {
                            String diff = "";
                            for (String key : want.keySet()) {
                                if (!want.get(key).equals(got.get(key))) {
                                    diff = key + ": want " + want.get(key) + " got " + got.get(key);
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
