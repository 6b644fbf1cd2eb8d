package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.Combine;
import dev.baton.morsel.scheduler.MorselScheduler;
import org.junit.jupiter.api.Test;

/**
 * The build's tail: a segment's rows combined by key and ordered by id, whether their keys' local indexes lie close
 * (placed by index) or far apart (a table, then sorted); and the segments gathered in id order by ranges of local
 * indexes, however many ranges.
 */
class SegmentBuildTest {

    private static final Combine[] SUM_AND_ARG_MAX = {Combine.SUM, Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE};

    @Test
    void shouldCombineAndOrderASegmentsRowsAlikeWhetherTheirKeysLieCloseOrSpread() {
        List<String> segment0 = stringsOfSegmentZero(2_000); // local indexes 0..1,999
        for (List<String> keys : List.of(segment0.subList(100, 110), List.of(segment0.get(0), segment0.get(1_999), segment0.get(1_000)))) {
            StringIds ids = new StringIds();
            segment0.forEach(ids::id); // an earlier query's strings
            SplittableRandom random = new SplittableRandom(39);
            DealtRows[] buckets = {new DealtRows(3, 4, 16), new DealtRows(3, 4, 16)};
            TreeMap<Long, List<Long>> want = new TreeMap<>();
            for (int i = 0; i < 200; i++) {
                String key = keys.get(random.nextInt(keys.size()));
                long sum = random.nextLong(100);
                long order = random.nextLong(50);
                long value = random.nextLong(1_000);
                DealtRows b = buckets[i % 2];
                byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
                int row = b.add(StringIds.hash(bytes, bytes.length), bytes, 0, bytes.length);
                int at = b.valuesAt(row);
                b.values(row)[at] = sum;
                b.values(row)[at + 1] = order;
                b.values(row)[at + 2] = value;
                List<Long> w = want.computeIfAbsent(ids.id(key), k -> new ArrayList<>(List.of(0L, Long.MIN_VALUE, 0L)));
                w.set(0, w.get(0) + sum);
                if (order > w.get(1) || order == w.get(1) && value > w.get(2)) {
                    w.set(1, order);
                    w.set(2, value);
                }
            }

            AggregateResult r = SegmentBuild.buildOne(0, buckets, 3, SUM_AND_ARG_MAX, ids);

            TreeMap<Long, List<Long>> got = new TreeMap<>();
            for (int i = 0; i < r.rows(); i++) {
                got.put(r.key(i), List.of(r.value(i, 0), r.value(i, 1), r.value(i, 2)));
            }
            assertThat(got).as("keys %s", keys).isEqualTo(want);
            assertThat(Arrays.copyOf(r.keys(), r.rows())).as("ascending").isSorted();
        }
    }

    @Test
    void shouldGatherTheSegmentsInIdOrderWhateverTheRanges() {
        SplittableRandom random = new SplittableRandom(3939);
        AggregateResult[] built = new AggregateResult[SegmentDeal.BUCKETS];
        List<long[]> all = new ArrayList<>();
        for (int k = 0; k < StringIds.SEGMENTS; k++) {
            List<Long> keys = new ArrayList<>();
            for (long local = random.nextLong(5); local < 3_000; local += 1 + random.nextLong(k % 3 == 0 ? 40 : 3)) {
                keys.add(StringIds.idOf(k, local));
            }
            built[k] = answer(keys, all);
        }
        built[SegmentDeal.NULL_BUCKET] = answer(List.of(StringIds.NULL), all);
        all.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int workers = 1; workers <= 2; workers++) {
            for (long minRange : new long[] {1, 7, 1_000, 1 << 20}) {
                try (MorselScheduler s = new MorselScheduler(workers, 1, MorselMetrics.noop())) {
                    AggregateResult r = IdOrderGather.gather(s, built, 2, minRange);

                    assertThat(r.rows()).isEqualTo(all.size());
                    for (int i = 0; i < all.size(); i++) {
                        assertThat(r.row(i)).as("row %d, %d workers, ranges of >= %d", i, workers, minRange).containsExactly(all.get(i));
                    }
                }
            }
        }
    }

    /** An answer of these keys (ascending), each with two slots made from its key; its rows are also added to {@code all}. */
    private static AggregateResult answer(List<Long> keys, List<long[]> all) {
        long[] k = new long[keys.size()];
        long[] v = new long[keys.size() * 2];
        for (int i = 0; i < k.length; i++) {
            k[i] = keys.get(i);
            v[2 * i] = k[i] * 3;
            v[2 * i + 1] = -k[i];
            all.add(new long[] {k[i], v[2 * i], v[2 * i + 1]});
        }
        return new AggregateResult(k, v, 2);
    }

    private static List<String> stringsOfSegmentZero(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; out.size() < n; i++) {
            byte[] b = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            if (StringIds.segmentOf(StringIds.hash(b, b.length)) == 0) {
                out.add("key-" + i);
            }
        }
        return out;
    }
}
