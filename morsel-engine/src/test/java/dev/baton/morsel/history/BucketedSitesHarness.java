package dev.baton.morsel.history;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.Projection;
import dev.baton.morsel.kafka.ProjectedRow;
import dev.baton.morsel.operator.Combine;
import dev.baton.morsel.operator.LongAggTable;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A throwaway measurement, not a test (issue 30, h/replay37; docs/decisions.md "Replay's sites scan bucketed"): the
 * sites query's work after Kafka's parse, on a history held in memory, done two ways on one thread.
 *
 * <ul>
 * <li>{@code probe}: what {@link SiteQueries} does today: per record the projected decode, the site key, request id,
 * queue and type through {@link RecentIds} into one {@link StringIds}, rows in batches of 1,024 into a
 * {@link LongAggTable} with the sites query's eleven slots (ARG_MAX pairs and a MIN), combined slot by slot.</li>
 * <li>{@code bucketed}: per record the projected decode; adjacent records of one site (a partition holds a site's
 * events together) combine into one row in registers; a row is dealt, with its key's bytes, into one of
 * {@code B} buckets by its key's hash, written sequentially; a dispatch's request id is dealt likewise by its
 * own hash. Then bucket by bucket a small table interns the keys and combines the rows, and the request
 * buckets are interned the same way; the sites' request slots are then mapped to request ids.</li>
 * </ul>
 *
 * Thread CPU per history record, each variant on a fresh dictionary, variants alternating; the two answers are
 * compared as strings once. Run: {@code java -cp test-classes:classes:deps BucketedSitesHarness bootstrap rounds buckets}.
 */
public final class BucketedSitesHarness {

    private static final int SLOTS = 11;
    private static final Combine[] COMBINE = {Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE, Combine.ARG_MAX_ORDER,
            Combine.ARG_MAX_VALUE, Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE, Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE,
            Combine.ARG_MAX_ORDER, Combine.ARG_MAX_VALUE, Combine.MIN};
    private static final int DISPATCHED = HistoryKind.DISPATCHED.ordinal();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The history as Kafka leaves it after a fetch: keys and values end to end, partition by partition, in offset order. */
    record Held(byte[] arena, int[] keyAt, int[] keyLength, int[] valueAt, int[] valueLength, long[] offsets, int records) {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        int rounds = Integer.parseInt(args[1]);
        int buckets = Integer.parseInt(args[2]);
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Held held = load(config);
        System.out.flush();
        System.out.printf("held %,d records, %,d bytes%n", held.records(), held.arena().length);
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", config)) {
            ProjectedReader reader = new ProjectedReader(registry, LogProjections.HISTORY);
            // the sites query's fields only: kind and time as slots 0 and 1 like HISTORY's, no namespace or workflow strings copied
            ProjectedReader narrow = new ProjectedReader(registry, Projection.of(HistoryEvent.getClassSchema(), "kind", "atMillis", "attempt",
                    "requestId", "queue", "activityType"));
            Map<String, String> a = probe(held, reader).answer();
            Map<String, String> b = bucketed(held, reader, buckets).answer();
            System.out.printf("answers: probe %,d sites, bucketed %,d sites, equal: %s%n", a.size(), b.size(), a.equals(b));
            b = bucketed(held, reader, buckets, false).answer();
            System.out.printf("answers: probe %,d sites, bucketed uncombined %,d sites, equal: %s%n", a.size(), b.size(), a.equals(b));
            for (int r = 0; r < rounds; r++) {
                Run d = decodeOnly(held, reader);
                Run nd = decodeOnly(held, narrow);
                Run p = probe(held, reader);
                Run q = bucketed(held, reader, buckets);
                Run u = bucketed(held, reader, buckets, false);
                Run c = bucketed(held, reader, buckets, true, false, false);
                Run ps = bucketed(held, reader, buckets, true, true, true);
                System.out.printf("round %2d  decode narrow %6.1f   decode only %6.1f   probe %6.1f ns/record   bucketed %6.1f ns/record (%s)   uncombined %6.1f (%s)   combine without deal %6.1f   bucketed presized %6.1f (%s)%n", r,
                        nd.nsPerRecord(held), d.nsPerRecord(held), p.nsPerRecord(held), q.nsPerRecord(held), q.phases(), u.nsPerRecord(held), u.phases(), c.nsPerRecord(held),
                        ps.nsPerRecord(held), ps.phases());
            }
        }
    }

    record Run(long cpuNanos, String phases, Map<String, String> answerHolder, Answer answer0) {
        double nsPerRecord(Held h) {
            return (double) cpuNanos / h.records();
        }

        Map<String, String> answer() {
            return answer0.strings();
        }
    }

    @FunctionalInterface
    interface Answer {
        Map<String, String> strings();
    }

    static Held load(Map<String, Object> config) {
        Map<String, Object> c = new HashMap<>(config);
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(BatonTopics.HISTORY, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(p.topic(), p.partition()));
            }
            parts.sort((x, y) -> Integer.compare(x.partition(), y.partition()));
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            int n = (int) total;
            byte[] arena = new byte[1 << 20];
            int used = 0;
            int[] keyAt = new int[n];
            int[] keyLength = new int[n];
            int[] valueAt = new int[n];
            int[] valueLength = new int[n];
            long[] offsets = new long[n];
            int i = 0;
            for (TopicPartition tp : parts) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end = ends.get(tp);
                while (consumer.position(tp) < end) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                        int need = used + r.key().length + r.value().length;
                        if (need > arena.length) {
                            arena = Arrays.copyOf(arena, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(need, arena.length * 3L / 2)));
                        }
                        keyAt[i] = used;
                        keyLength[i] = r.key().length;
                        System.arraycopy(r.key(), 0, arena, used, r.key().length);
                        used += r.key().length;
                        valueAt[i] = used;
                        valueLength[i] = r.value().length;
                        System.arraycopy(r.value(), 0, arena, used, r.value().length);
                        used += r.value().length;
                        offsets[i++] = r.offset();
                    }
                }
            }
            return new Held(Arrays.copyOf(arena, used), keyAt, keyLength, valueAt, valueLength, offsets, i);
        }
    }

    /** The floor both variants share: the projected decode of every value and a read of the fields the scan reads. */
    static Run decodeOnly(Held h, ProjectedReader reader) {
        System.gc();
        long t0 = THREADS.getCurrentThreadCpuTime();
        ProjectedRow row = reader.newRow();
        ByteBuffer value = ByteBuffer.wrap(h.arena());
        long sum = 0;
        for (int i = 0; i < h.records(); i++) {
            value.limit(h.valueAt()[i] + h.valueLength()[i]).position(h.valueAt()[i]);
            reader.decode(BatonTopics.HISTORY, value, row);
            sum += row.getInt(LogProjections.H_KIND) + row.getLong(LogProjections.H_AT) + h.keyLength()[i];
        }
        long cpu = THREADS.getCurrentThreadCpuTime() - t0;
        long kept = sum;
        return new Run(cpu, "", null, () -> Map.of("sum", Long.toString(kept)));
    }

    // ---------------------------------------------------------------- today's scan: a dictionary probe and an aggregate probe per record

    static Run probe(Held h, ProjectedReader reader) {
        System.gc();
        long t0 = THREADS.getCurrentThreadCpuTime();
        StringIds ids = new StringIds();
        int expected = Math.max(1 << 12, h.records() / 3);
        ids.expect(2L * expected, 40);
        RecentIds recent = new RecentIds(ids, 10);
        LongAggTable table = new LongAggTable(SLOTS, expected, COMBINE);
        ProjectedRow row = reader.newRow();
        ByteBuffer value = ByteBuffer.wrap(h.arena());
        ByteBuffer key = ByteBuffer.wrap(h.arena());
        int batch = 1024;
        long[][] cols = new long[10][batch];
        int[] sel = new int[batch];
        for (int j = 0; j < batch; j++) {
            sel[j] = j;
        }
        int[] bases = new int[batch];
        int n = 0;
        for (int i = 0; i < h.records(); i++) {
            value.limit(h.valueAt()[i] + h.valueLength()[i]).position(h.valueAt()[i]);
            reader.decode(BatonTopics.HISTORY, value, row);
            key.limit(h.keyAt()[i] + h.keyLength()[i]).position(h.keyAt()[i]);
            int kind = row.getInt(LogProjections.H_KIND);
            boolean dispatch = kind == DISPATCHED;
            cols[0][n] = h.offsets()[i];
            cols[1][n] = kind;
            cols[2][n] = dispatch ? 1 : 0;
            cols[3][n] = row.getLong(LogProjections.H_AT);
            cols[4][n] = recent.id(4, key);
            cols[6][n] = dispatch ? recent.id(6, row.utf8(LogProjections.H_REQUEST)) : StringIds.NULL;
            cols[7][n] = dispatch ? row.getInt(LogProjections.H_ATTEMPT) : 0;
            cols[8][n] = dispatch ? recent.id(8, row.utf8(LogProjections.H_QUEUE)) : StringIds.NULL;
            cols[9][n] = dispatch ? recent.id(9, row.utf8(LogProjections.H_TYPE)) : StringIds.NULL;
            if (++n == batch) {
                aggregate(table, cols, sel, bases, n);
                n = 0;
            }
        }
        if (n > 0) {
            aggregate(table, cols, sel, bases, n);
        }
        long cpu = THREADS.getCurrentThreadCpuTime() - t0;
        return new Run(cpu, "", null, () -> probeAnswer(table, ids));
    }

    /** The sites query's accumulators over a batch, slot by slot as {@code HashAggregate} folds them. */
    private static void aggregate(LongAggTable table, long[][] cols, int[] sel, int[] bases, int n) {
        table.slotBases(cols[4], sel, n, bases);
        long[] v = table.values();
        long[] offset = cols[0];
        long[] order = new long[n];
        long[] dispatchAt = new long[n];
        for (int j = 0; j < n; j++) {
            order[j] = (offset[j] + 1) * cols[2][j] - 1;
            dispatchAt[j] = cols[3][j] * cols[2][j] + (1 - cols[2][j]) * Long.MAX_VALUE;
        }
        argMax(v, bases, n, 0, offset, cols[1]);
        argMax(v, bases, n, 2, order, cols[6]);
        argMax(v, bases, n, 4, order, cols[7]);
        argMax(v, bases, n, 6, order, cols[8]);
        argMax(v, bases, n, 8, order, cols[9]);
        for (int j = 0; j < n; j++) {
            v[bases[j] + 10] = Math.min(v[bases[j] + 10], dispatchAt[j]);
        }
    }

    private static void argMax(long[] values, int[] s, int n, int a, long[] order, long[] value) {
        for (int j = 0; j < n; j++) {
            int at = s[j] + a;
            if (order[j] > values[at] || order[j] == values[at] && value[j] > values[at + 1]) {
                values[at] = order[j];
                values[at + 1] = value[j];
            }
        }
    }

    private static Map<String, String> probeAnswer(LongAggTable table, StringIds ids) {
        Map<String, String> out = new HashMap<>();
        long[][] rows = table.sortedRows();
        for (long[] r : rows) {
            out.put(ids.string(r[0]), describe(r, 1, ids.string(r[1 + 3]), ids.string(r[1 + 7]), ids.string(r[1 + 9])));
        }
        return out;
    }

    private static String describe(long[] v, int base, String request, String queue, String type) {
        boolean dispatched = v[base + 2] >= 0;
        return v[base] + "," + v[base + 1] + "," + (dispatched ? request + "," + v[base + 5] + "," + queue + "," + type + "," + v[base + 10] : "-");
    }

    // ---------------------------------------------------------------- bucketed: deal sequentially, then build bucket by bucket

    /** One bucket's rows ({@link #WIDTH} longs each: key hash, key's place in {@link #bytes}, the eleven slots) and key bytes. */
    static final class Bucket {
        static final int WIDTH = 2 + SLOTS;
        final int width;
        long[] rows;

        Bucket(int width) {
            this(width, 64, 1 << 12);
        }

        Bucket(int width, int expectedRows, int expectedBytes) {
            this.width = width;
            rows = new long[width * Math.max(64, expectedRows)];
            bytes = new byte[Math.max(1 << 12, expectedBytes)];
        }

        int count;
        byte[] bytes = new byte[1 << 12];
        int used;

        int addBytes(byte[] from, int at, int length) {
            if (used + length + 4 > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(used + length + 4, 2 * bytes.length));
            }
            int start = used;
            bytes[used] = (byte) length; // keys and request ids here are < 128 bytes (a prototype)
            System.arraycopy(from, at, bytes, used + 1, length);
            used += 1 + length;
            return start;
        }

        int add() {
            if ((count + 1) * width > rows.length) {
                rows = Arrays.copyOf(rows, 2 * rows.length);
            }
            return count++ * width;
        }
    }

    static Run bucketed(Held h, ProjectedReader reader, int buckets) {
        return bucketed(h, reader, buckets, true, true, false);
    }

    static Run bucketed(Held h, ProjectedReader reader, int buckets, boolean combineRuns) {
        return bucketed(h, reader, buckets, combineRuns, true, false);
    }

    /** @param combineRuns whether adjacent records of one site combine before the deal (else every record is a row) */
    /** @param deals whether rows and request ids are dealt at all (false: the decode and the run combine alone, to cost the deal) */
    static Run bucketed(Held h, ProjectedReader reader, int buckets, boolean combineRuns, boolean deals, boolean presized) {
        System.gc();
        long t0 = THREADS.getCurrentThreadCpuTime();
        int bits = Integer.numberOfTrailingZeros(buckets);
        Bucket[] sites = new Bucket[buckets];
        Bucket[] requests = new Bucket[buckets];
        for (int b = 0; b < buckets; b++) {
            // presized: a fifth more than an even share of one row per three records, keys and request ids of ~40 bytes
            int rows = presized ? h.records() / 3 / buckets * 6 / 5 : 64;
            sites[b] = presized ? new Bucket(Bucket.WIDTH, rows, rows * 48) : new Bucket(Bucket.WIDTH);
            requests[b] = presized ? new Bucket(2, rows, rows * 48) : new Bucket(2);
        }
        StringIds small = new StringIds(); // queues and types: a handful of strings, always in cache
        RecentIds recent = new RecentIds(small, 10);
        ProjectedRow row = reader.newRow();
        ByteBuffer value = ByteBuffer.wrap(h.arena());
        byte[] arena = h.arena();
        long[] run = new long[SLOTS];
        int runKeyAt = -1;
        int runKeyLength = 0;
        for (int i = 0; i < h.records(); i++) {
            value.limit(h.valueAt()[i] + h.valueLength()[i]).position(h.valueAt()[i]);
            reader.decode(BatonTopics.HISTORY, value, row);
            int keyAt = h.keyAt()[i];
            int keyLength = h.keyLength()[i];
            if (!combineRuns || runKeyAt < 0 || runKeyLength != keyLength || !Arrays.equals(arena, runKeyAt, runKeyAt + keyLength, arena, keyAt, keyAt + keyLength)) {
                if (runKeyAt >= 0 && deals) {
                    deal(sites, bits, run, arena, runKeyAt, runKeyLength);
                }
                runKeyAt = keyAt;
                runKeyLength = keyLength;
                for (int s = 0; s < SLOTS; s++) {
                    run[s] = COMBINE[s].identity();
                }
            }
            long offset = h.offsets()[i];
            int kind = row.getInt(LogProjections.H_KIND);
            if (offset > run[0]) { // offsets ascend within a run: the latest kind wins
                run[0] = offset;
                run[1] = kind;
            }
            if (kind == DISPATCHED && offset > run[2]) {
                run[2] = offset;
                run[4] = offset;
                run[6] = offset;
                run[8] = offset;
                run[5] = row.getInt(LogProjections.H_ATTEMPT);
                run[7] = recent.id(8, row.utf8(LogProjections.H_QUEUE));
                run[9] = recent.id(9, row.utf8(LogProjections.H_TYPE));
                run[10] = Math.min(run[10], row.getLong(LogProjections.H_AT));
                var request = row.utf8(LogProjections.H_REQUEST);
                // dealt now, from the reused buffer; a later dispatch of the run supersedes it by order
                run[3] = deals ? dealRequest(requests, bits, request.getBytes(), request.getByteLength()) : request.getByteLength();
            } else if (kind != DISPATCHED) {
                // a non-dispatch row's order is -1: it wins an empty group's ARG_MAX slots only
                for (int s = 2; s <= 8; s += 2) {
                    if (-1 > run[s]) {
                        run[s] = -1;
                        run[s + 1] = 0;
                    }
                }
                run[10] = Math.min(run[10], Long.MAX_VALUE);
            }
        }
        if (runKeyAt >= 0 && deals) {
            deal(sites, bits, run, arena, runKeyAt, runKeyLength);
        }
        long t1 = THREADS.getCurrentThreadCpuTime();
        // build: bucket by bucket, keys interned in a small table and rows combined into their group
        Built[] built = new Built[buckets];
        for (int b = 0; b < buckets; b++) {
            built[b] = build(sites[b], true);
        }
        long t2 = THREADS.getCurrentThreadCpuTime();
        Built[] requestIds = new Built[buckets];
        for (int b = 0; b < buckets; b++) {
            requestIds[b] = build(requests[b], false);
        }
        // each site's request slot held (request bucket, row): now the request's id (its group, bucket)
        for (int b = 0; b < buckets; b++) {
            Built s = built[b];
            for (int g = 0; g < s.groups; g++) {
                long ref = s.values[g * SLOTS + 3];
                if (ref != 0) {
                    int rb = (int) (ref >>> 32);
                    int r = (int) ref - 1;
                    s.values[g * SLOTS + 3] = ((long) requestIds[rb].groupOfRow[r] << bits | rb) + 1;
                }
            }
        }
        long t3 = THREADS.getCurrentThreadCpuTime();
        String phases = String.format("deal %.0f, build %.0f, requests %.0f", (t1 - t0) / (double) h.records(), (t2 - t1) / (double) h.records(),
                (t3 - t2) / (double) h.records());
        return new Run(t3 - t0, phases, null, () -> bucketedAnswer(built, requestIds, sites, requests, small, bits));
    }

    /** Deals a request id into its bucket by its own hash; returns where its id will be (bucket, row + 1). */
    private static long dealRequest(Bucket[] requests, int bits, byte[] bytes, int length) {
        int mask = (1 << bits) - 1;
        int rh = StringIds.hash(bytes, 0, length);
        Bucket rb = requests[rh & mask];
        int at = rb.add();
        rb.rows[at] = rh;
        rb.rows[at + 1] = rb.addBytes(bytes, 0, length);
        return ((long) (rh & mask) << 32) + at / 2 + 1;
    }

    private static void deal(Bucket[] sites, int bits, long[] run, byte[] arena, int keyAt, int keyLength) {
        int mask = (1 << bits) - 1;
        int hash = StringIds.hash(arena, keyAt, keyLength);
        Bucket b = sites[hash & mask];
        int at = b.add();
        b.rows[at] = hash;
        b.rows[at + 1] = b.addBytes(arena, keyAt, keyLength);
        System.arraycopy(run, 0, b.rows, at + 2, SLOTS);
    }

    /** A bucket's groups: per row its group, per group its first row and (for sites) its combined slots. */
    static final class Built {
        int[] groupOfRow;
        int[] firstRow;
        long[] values;
        int groups;
    }

    private static Built build(Bucket bucket, boolean combine) {
        Built out = new Built();
        int n = bucket.count;
        out.groupOfRow = new int[n];
        out.firstRow = new int[Math.max(1, n)];
        out.values = combine ? new long[Math.max(1, n) * SLOTS] : null;
        int capacity = Integer.highestOneBit(Math.max(16, 2 * n - 1)) << 1;
        int[] table = new int[capacity]; // group + 1 by slot
        int mask = capacity - 1;
        long[] rows = bucket.rows;
        byte[] bytes = bucket.bytes;
        for (int r = 0; r < n; r++) {
            int at = r * bucket.width;
            int hash = (int) rows[at];
            int keyAt = (int) rows[at + 1];
            int length = bytes[keyAt];
            int slot = (hash >>> 8) & mask;
            int group;
            while (true) {
                int g = table[slot];
                if (g == 0) {
                    group = out.groups++;
                    table[slot] = group + 1;
                    out.firstRow[group] = r;
                    if (combine) {
                        System.arraycopy(rows, at + 2, out.values, group * SLOTS, SLOTS);
                    }
                    break;
                }
                int other = (int) rows[out.firstRow[g - 1] * bucket.width + 1];
                if ((int) rows[out.firstRow[g - 1] * bucket.width] == hash && bytes[other] == length
                        && Arrays.equals(bytes, other + 1, other + 1 + length, bytes, keyAt + 1, keyAt + 1 + length)) {
                    group = g - 1;
                    if (combine) {
                        combineInto(out.values, group * SLOTS, rows, at + 2);
                    }
                    break;
                }
                slot = (slot + 1) & mask;
            }
            out.groupOfRow[r] = group;
        }
        return out;
    }

    private static void combineInto(long[] into, int base, long[] from, int at) {
        for (int s = 0; s < SLOTS; s++) {
            long x = from[at + s];
            switch (COMBINE[s]) {
                case ARG_MAX_ORDER -> {
                    if (x > into[base + s] || x == into[base + s] && from[at + s + 1] > into[base + s + 1]) {
                        into[base + s] = x;
                        into[base + s + 1] = from[at + s + 1];
                    }
                    s++;
                }
                case MIN -> into[base + s] = Math.min(into[base + s], x);
                default -> throw new IllegalStateException();
            }
        }
    }

    private static Map<String, String> bucketedAnswer(Built[] built, Built[] requestIds, Bucket[] sites, Bucket[] requests, StringIds small,
            int bits) {
        Map<String, String> out = new HashMap<>();
        int mask = (1 << bits) - 1;
        for (int b = 0; b < built.length; b++) {
            Built s = built[b];
            for (int g = 0; g < s.groups; g++) {
                String key = string(sites[b], s.firstRow[g]);
                long[] v = Arrays.copyOfRange(s.values, g * SLOTS, g * SLOTS + SLOTS);
                String request = null;
                if (v[3] != 0) {
                    long id = v[3] - 1;
                    int rb = (int) (id & mask);
                    int group = (int) (id >>> bits);
                    request = string(requests[rb], requestIds[rb].firstRow[group]);
                }
                out.put(key, describe(v, 0, request, small.string(v[7]), small.string(v[9])));
            }
        }
        return out;
    }

    private static String string(Bucket b, int row) {
        int at = (int) b.rows[row * b.width + 1];
        return new String(b.bytes, at + 1, b.bytes[at], StandardCharsets.UTF_8);
    }
}
