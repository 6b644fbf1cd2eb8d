package dev.baton.morsel.kafka;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.HistoryEvent;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A measurement, not a test (issue 30, h/decode38; docs/decisions.md "The projected decode about twice as cheap"): the
 * history scan's projected decode alone, on the bench's history held in memory, by thread CPU per record on one thread.
 * Every variant decodes every value with the history queries' projection ({@code LogProjections.HISTORY}'s paths) and
 * reads the slots the sites query reads; the variants alternate in every round, and before the rounds each variant's
 * rows are compared slot by slot (longs, doubles, nulls, string bytes) with today's step plan ({@link StepPlan}).
 *
 * <p>Run against a held broker ({@code baton bench replay --command-only --command-runs 0 --hold-file F}):
 * {@code java -cp morsel-engine/target/test-classes:morsel-engine/target/classes:cli/target/baton.jar
 * dev.baton.morsel.kafka.DecodeHarness 127.0.0.1:PORT ROUNDS [variant,...]}.
 */
public final class DecodeHarness {

    static final String[] HISTORY_PATHS = {"kind", "atMillis", "site.namespace", "site.workflowId", "attempt", "requestId", "queue", "activityType"};
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The history's values end to end, partition by partition, as a fetch leaves them. */
    record Held(byte[] arena, int[] at, int[] length, int records) {
    }

    /** One way of decoding a value into a row. */
    @FunctionalInterface
    interface Decoder {
        void decode(byte[] arena, int at, int length, ProjectedRow row) throws IOException;
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        int rounds = Integer.parseInt(args[1]);
        Held held = load(config);
        System.out.printf("held %,d values, %,d bytes (%.1f per value)%n", held.records(), held.arena().length,
                (double) held.arena().length / held.records());
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", config)) {
            Projection history = Projection.of(HistoryEvent.getClassSchema(), HISTORY_PATHS);
            Map<String, Variant> all = variants(registry, history, held);
            List<String> chosen = args.length > 2 ? List.of(args[2].split(",")) : new ArrayList<>(all.keySet());
            Variant reference = all.get("steps");
            for (String name : chosen) {
                Variant v = all.get(name);
                if (v.comparable) {
                    System.out.printf("answers %-14s %s%n", name, compare(held, reference, v, history.size()));
                }
            }
            for (int r = 0; r < rounds; r++) {
                StringBuilder line = new StringBuilder(String.format("round %2d", r));
                List<String> order = new ArrayList<>(chosen);
                if (r % 2 == 1) {
                    java.util.Collections.reverse(order); // alternate which variant runs first
                }
                Map<String, Double> ns = new HashMap<>();
                for (String name : order) {
                    ns.put(name, time(held, all.get(name), history.size()));
                }
                for (String name : chosen) {
                    line.append(String.format("  %s %6.1f", name, ns.get(name)));
                }
                System.out.println(line.append(" ns/record  load ").append(load()));
            }
        }
    }

    record Variant(Decoder decoder, boolean comparable) {
    }

    static Map<String, Variant> variants(SchemaRegistry registry, Projection history, Held held) {
        Map<String, Variant> out = new LinkedHashMap<>();
        int id = schemaId(held);
        Schema writer = registry.schemaById(id);
        StepPlan steps = StepPlan.compile(writer, history);
        ProjectedReader reader = new ProjectedReader(registry, history);
        // today's plan without the reader's framing: the header, the id check and the ByteBuffer
        out.put("steps", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            steps.decode(row.reader, row);
            if (!row.reader.isEnd()) {
                throw new IllegalStateException("trailing bytes");
            }
        }, true));
        // the new plan, likewise without the framing
        ProjectionPlan plan = ProjectionPlan.compile(writer, history);
        out.put("plan", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            plan.decode(row.reader, row);
            if (!row.reader.isEnd()) {
                throw new IllegalStateException("trailing bytes");
            }
        }, true));
        // the reader as the scan calls it: a ByteBuffer view of the value inside its batch
        ByteBuffer[] view = {ByteBuffer.wrap(held.arena())};
        out.put("reader", new Variant((a, at, n, row) -> {
            view[0].limit(at + n).position(at);
            reader.decode(BatonTopics.HISTORY, view[0], row);
        }, true));
        // pieces removed: no strings copied (only kind, time, attempt read), and only the time read (everything else skipped)
        Projection noStrings = Projection.of(HistoryEvent.getClassSchema(), "kind", "atMillis", "attempt");
        StepPlan noStringSteps = StepPlan.compile(writer, noStrings);
        out.put("nostrings", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            noStringSteps.decode(row.reader, row);
        }, false));
        ProjectionPlan noStringPlan = ProjectionPlan.compile(writer, noStrings);
        out.put("plannostrings", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            noStringPlan.decode(row.reader, row);
        }, false));
        Projection skips = Projection.of(HistoryEvent.getClassSchema(), "atMillis");
        StepPlan skipSteps = StepPlan.compile(writer, skips);
        out.put("skipall", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            skipSteps.decode(row.reader, row);
        }, false));
        ProjectionPlan skipPlan = ProjectionPlan.compile(writer, skips);
        out.put("planskipall", new Variant((a, at, n, row) -> {
            row.reader.reset(a, at + 5, n - 5);
            skipPlan.decode(row.reader, row);
        }, false));
        // straight-line code for this one writer schema with today's WireReader: what no dispatch per field would give
        out.put("hand", new Variant((a, at, n, row) -> {
            WireReader in = row.reader;
            in.reset(a, at + 5, n - 5);
            handDecode(in, row);
            if (!in.isEnd()) {
                throw new IllegalStateException("trailing bytes");
            }
        }, true));
        return out;
    }

    /** HistoryEvent as written today, by hand (a measurement of the dispatch's share, not a decoder to keep). */
    static void handDecode(WireReader in, ProjectedRow row) throws IOException {
        java.util.Arrays.fill(row.nulls, false);
        row.longs[0] = in.readInt(); // kind: writer and reader symbols are the same
        in.readString(row, 2);
        in.readString(row, 3);
        in.skipString();
        row.longs[4] = in.readInt();
        if (in.readInt() == 1) {
            in.readInt();
        }
        nullableString(in, row, 6);
        nullableString(in, row, 7);
        if (in.readInt() == 1) {
            in.skipString();
        }
        nullableString(in, row, 5);
        if (in.readInt() == 1) {
            in.skipString();
        }
        if (in.readInt() == 1) {
            in.skipString();
        }
        if (in.readInt() == 1) {
            in.skipString();
            in.skipString();
        }
        row.longs[1] = in.readLong();
        if (in.readInt() == 1) {
            skipFailure(in);
        }
    }

    private static void nullableString(WireReader in, ProjectedRow row, int slot) throws IOException {
        if (in.readInt() == 1) {
            in.readString(row, slot);
        } else {
            row.nulls[slot] = true;
        }
    }

    private static void skipFailure(WireReader in) throws IOException {
        in.skipString();
        in.skipString();
        if (in.readInt() == 1) {
            in.skipString();
            in.skipString();
        }
        in.skipString();
        if (in.readInt() == 1) {
            skipFailure(in);
        }
    }

    private static int schemaId(Held h) {
        byte[] a = h.arena();
        int at = h.at()[0];
        return (a[at + 1] & 0xff) << 24 | (a[at + 2] & 0xff) << 16 | (a[at + 3] & 0xff) << 8 | (a[at + 4] & 0xff);
    }

    /** Thread CPU per value of decoding every value, plus a read of the sites query's slots (kept in a sum so none is dead). */
    static double time(Held h, Variant v, int slots) throws IOException {
        System.gc();
        ProjectedRow row = new ProjectedRow(slots);
        byte[] arena = h.arena();
        int[] at = h.at();
        int[] length = h.length();
        Decoder d = v.decoder();
        long sum = 0;
        long t0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < h.records(); i++) {
            d.decode(arena, at[i], length[i], row);
            sum += row.getLong(0) + row.getLong(1) + row.getLong(4) + (row.isNull(5) ? 0 : row.stringLength(5));
        }
        long cpu = THREADS.getCurrentThreadCpuTime() - t0;
        if (sum == 42) {
            System.out.print("");
        }
        return (double) cpu / h.records();
    }

    /** Every slot of every row equal to the reference's: longs, doubles, nulls, and the bytes of non-null strings. */
    static String compare(Held h, Variant reference, Variant v, int slots) throws IOException {
        ProjectedRow a = new ProjectedRow(slots);
        ProjectedRow b = new ProjectedRow(slots);
        long differ = 0;
        for (int i = 0; i < h.records(); i++) {
            reference.decoder().decode(h.arena(), h.at()[i], h.length()[i], a);
            v.decoder().decode(h.arena(), h.at()[i], h.length()[i], b);
            for (int s = 0; s < slots; s++) {
                boolean same = a.isNull(s) == b.isNull(s) && a.getLong(s) == b.getLong(s)
                        && Double.doubleToRawLongBits(a.getDouble(s)) == Double.doubleToRawLongBits(b.getDouble(s))
                        && (a.isNull(s) || a.stringArray(s) == null && b.stringArray(s) == null || a.string(s).equals(b.string(s)));
                if (!same) {
                    if (differ++ < 3) {
                        System.out.printf("  record %d slot %d differs: %s / %s%n", i, s, a.stringArray(s) == null ? "-" : a.string(s), b.stringArray(s) == null ? "-" : b.string(s));
                    }
                }
            }
        }
        return differ == 0 ? "equal on all " + h.records() + " rows" : differ + " slots DIFFER";
    }

    static String load() {
        try {
            return new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg"))).trim();
        } catch (IOException e) {
            return "?";
        }
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
            int n = (int) ends.values().stream().mapToLong(Long::longValue).sum();
            byte[] arena = new byte[1 << 20];
            int used = 0;
            int[] at = new int[n];
            int[] length = new int[n];
            int i = 0;
            for (TopicPartition tp : parts) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                while (consumer.position(tp) < ends.get(tp)) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                        if (used + r.value().length > arena.length) {
                            arena = Arrays.copyOf(arena, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(used + r.value().length, arena.length * 3L / 2)));
                        }
                        at[i] = used;
                        length[i++] = r.value().length;
                        System.arraycopy(r.value(), 0, arena, used, r.value().length);
                        used += r.value().length;
                    }
                }
            }
            return new Held(Arrays.copyOf(arena, used), at, length, i);
        }
    }
}
