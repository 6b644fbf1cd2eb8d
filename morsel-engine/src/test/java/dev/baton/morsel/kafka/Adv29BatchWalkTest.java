package dev.baton.morsel.kafka;

import static dev.baton.morsel.kafka.WalkedRecords.resealCrc;
import static dev.baton.morsel.kafka.WalkedRecords.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * Adversarial differential tests of {@link BatchWalk}'s record parsing (its one- and two-byte varint fast path above
 * all) against Kafka's own reader, written by an adversary (h/adv29, docs/decisions.md). Each case's outcome is either the list of records handed out or "CORRUPT"; the walk
 * must never throw anything but {@link CorruptRecordException}.
 *
 * <p>The reference applies the consumer's rule the walk documents (a record below the fetch offset, or below one past
 * the last record handed out, or below a finished batch's next offset, is passed over) to Kafka's own records, so a
 * damaged offset delta that makes offsets go backwards is not counted as a difference.
 */
class Adv29BatchWalkTest {

    private static final String CORRUPT = "CORRUPT";
    private static final String KAFKA_CRASHED = "KAFKA_CRASHED";

    // ---------------------------------------------------------------------------------------------------------------
    // Findings of h/adv29 (twenty-ninth session): minimal cases, each failed before BatchWalk was fixed
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * A record length of Integer.MAX_VALUE makes {@code recordEnd = p + length} wrap negative, so the length check passes;
     * a key size of MAX - 74 then passes the key check ({@code recordEnd - p} wraps back to a large positive) and moves p
     * to exactly Integer.MAX_VALUE. The value size's varint is then read at p = MAX: the fast path's {@code i + 1 <
     * base + batchAt} wraps to MIN_VALUE &lt; batchAt, so it read {@code array[MAX]}: ArrayIndexOutOfBoundsException
     * (fixed: the length is checked without the sum).
     * The byte loop that was there before ({@code anyVarint}: {@code i >= stop}) threw CorruptRecordException here. Kafka
     * refuses the record ("Invalid record size").
     */
    @Test
    void recordLengthIntMaxWithAKeyThatBringsTheCursorToIntMaxIsRefusedAsCorrupt() {
        // batch at 0: records start at 61; the length varint takes 5 bytes: p0 = 66; attributes, timestamp delta and
        // offset delta one byte each, the key size 5 bytes: p = 74 after it
        assertRefusedWithLengthIntMaxAndKeySize(Integer.MAX_VALUE - 74);
    }

    /**
     * The same wrap with the key size one more (MAX - 73): p wraps to MIN_VALUE, and the value size's varint is read at
     * a negative index. Neither the fast path nor the old loop ({@code i >= stop} is false for a negative i) bounds it
     * from below: ArrayIndexOutOfBoundsException where Kafka refuses the record (fixed with the length check).
     */
    @Test
    void recordLengthIntMaxWithAKeyThatWrapsTheCursorNegativeIsRefusedAsCorrupt() {
        assertRefusedWithLengthIntMaxAndKeySize(Integer.MAX_VALUE - 73);
    }

    /** A batch of one record of length Integer.MAX_VALUE that stops after this key size: both readers refuse it. */
    private static void assertRefusedWithLengthIntMaxAndKeySize(int keySize) {
        byte[][] parts = new Rec().parts();
        parts[3] = zz(keySize);
        byte[] record = cat(zz(Integer.MAX_VALUE), parts[0], parts[1], parts[2], parts[3]); // the record stops there
        MemoryRecords records = MemoryRecords.readableRecords(batch(0, 1, record));

        assertThat(kafka(records, 0)).isEqualTo(CORRUPT);
        assertThat(walk(records, 0)).isEqualTo(CORRUPT);
    }

    /**
     * Kafka reads any negative key size as a null key ({@code Utils.readBytes}: size &lt; 0 is null), so a key size of -2
     * (one byte, 0x03, in place of -1's 0x01) is a record Kafka hands out with a null key. The walk refused it as
     * corrupt (a {@code keySize < -1} check older than the varint change); it now reads null as Kafka does.
     */
    @Test
    void keySizeMinusTwoIsANullKeyToKafka() {
        Rec r = new Rec();
        r.key = null;
        byte[][] parts = r.parts();
        parts[3] = zz(-2);
        ByteBuffer batch = batch(5, 1, r.encode(parts, null));
        MemoryRecords records = MemoryRecords.readableRecords(batch);

        assertThat(kafka(records, 0)).isEqualTo(List.of("5:null=v"));
        assertThat(walk(records, 0)).isEqualTo(List.of("5:null=v"));
    }

    /** The same for a value size of -2, and of a large negative value size (-100000, three bytes). */
    @Test
    void valueSizeBelowMinusOneIsANullValueToKafka() {
        for (int size : new int[] {-2, -100_000}) {
            Rec r = new Rec();
            r.value = null;
            byte[][] parts = r.parts();
            parts[5] = zz(size);
            ByteBuffer batch = batch(5, 1, r.encode(parts, null));
            MemoryRecords records = MemoryRecords.readableRecords(batch);

            assertThat(kafka(records, 0)).as("value size " + size).isEqualTo(List.of("5:k=null"));
            assertThat(walk(records, 0)).as("value size " + size).isEqualTo(List.of("5:k=null"));
        }
    }

    /** The same for a header's value size of -2: Kafka reads a header with a null value. */
    @Test
    void headerValueSizeMinusTwoIsANullHeaderValueToKafka() {
        Rec r = new Rec();
        r.headers = new byte[][][] {{"h".getBytes(), null}};
        byte[][] parts = r.parts();
        parts[parts.length - 2] = zz(-2); // the header's value size (its value is null: no part after it is bytes)
        ByteBuffer batch = batch(5, 1, r.encode(parts, null));
        MemoryRecords records = MemoryRecords.readableRecords(batch);

        assertThat(kafka(records, 0)).isEqualTo(List.of("5:k=v"));
        assertThat(walk(records, 0)).isEqualTo(List.of("5:k=v"));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Targeted: every field of a record replaced with edge encodings, in several layouts
    // ---------------------------------------------------------------------------------------------------------------

    private static final long[] EDGE_VALUES = {0, 1, -1, -2, -3, 2, 62, 63, 64, 65, -63, -64, -65, 127, 128, 8190, 8191, 8192, 8193,
            -8191, -8192, -8193, 1 << 20, -(1 << 20), Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1};

    /** Raw encodings that are not canonical, too long, cut short, or with the continuation bit in odd places. */
    private static final byte[][] RAW_ENCODINGS = {
            {}, {(byte) 0x80}, {(byte) 0xff}, {(byte) 0x80, 0x00}, {(byte) 0x81, 0x00}, {(byte) 0x80, (byte) 0x80, 0x00},
            {(byte) 0x82, 0x00}, {(byte) 0xfe, 0x7f}, {(byte) 0xff, 0x7f}, {(byte) 0x80, 0x01}, {(byte) 0x81, 0x01},
            {(byte) 0x80, (byte) 0x80}, {(byte) 0xff, (byte) 0xff, 0x7f}, {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00},
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x7f}, {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
            {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}, {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f},
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00},
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01},
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00},
            {0x00, 0x00}, {0x02, 0x00}, {0x01},
    };

    @Test
    void everyFieldWithEveryEdgeEncodingMatchesKafka() {
        Stats stats = new Stats();
        for (Rec shape : shapes()) {
            byte[][] parts = shape.parts();
            for (int field = 0; field < parts.length; field++) {
                if (!shape.isVarField(field)) {
                    continue;
                }
                List<byte[]> encodings = new ArrayList<>();
                for (long v : EDGE_VALUES) {
                    encodings.add(field == 1 ? zzLong(v) : zz((int) v));
                }
                if (field == 1) {
                    encodings.add(zzLong(Long.MAX_VALUE));
                    encodings.add(zzLong(Long.MIN_VALUE));
                    encodings.add(zzLong(1L << 40));
                }
                encodings.addAll(Arrays.asList(RAW_ENCODINGS));
                for (byte[] e : encodings) {
                    byte[][] edited = parts.clone();
                    edited[field] = e;
                    for (int lengthMode = 0; lengthMode < 4; lengthMode++) {
                        Integer length = switch (lengthMode) {
                            case 0 -> null; // the body as it is now
                            case 1 -> bodyLength(parts); // the length before the edit
                            case 2 -> bodyLength(edited) - 1;
                            default -> bodyLength(edited) + 1;
                        };
                        byte[] record = shape.encode(edited, length);
                        compareInLayouts("shape " + shape + " field " + field + " enc " + hex(e) + " lengthMode " + lengthMode,
                                List.of(shape, new Rec()), record, stats);
                    }
                }
            }
        }
        stats.assertNone();
        System.out.println("Adv29 edges: " + stats);
    }

    /** The record length itself: every edge value and raw encoding, the body left as it is. */
    @Test
    void everyRecordLengthEncodingMatchesKafka() {
        Stats stats = new Stats();
        for (Rec shape : shapes()) {
            byte[][] parts = shape.parts();
            byte[] body = cat(parts);
            List<byte[]> encodings = new ArrayList<>();
            for (long v : EDGE_VALUES) {
                encodings.add(zz((int) v));
            }
            for (int d = -3; d <= 3; d++) {
                encodings.add(zz(body.length + d));
            }
            encodings.addAll(Arrays.asList(RAW_ENCODINGS));
            for (byte[] e : encodings) {
                compareInLayouts("shape " + shape + " length " + hex(e), List.of(shape, new Rec()), cat(e, body), stats);
            }
        }
        stats.assertNone();
        System.out.println("Adv29 lengths: " + stats);
    }

    /** A valid batch cut (its length and CRC made to fit) at every byte of its records: varints at and across its end. */
    @Test
    void everyCutOfTheRecordsMatchesKafka() {
        Stats stats = new Stats();
        for (Rec shape : shapes()) {
            byte[] first = shape.encode(shape.parts(), null);
            byte[] second = new Rec().encode(new Rec().parts(), null);
            byte[] both = cat(first, second);
            for (int cut = 0; cut <= both.length; cut++) {
                for (int count = 1; count <= 3; count++) {
                    compareRaw("cut " + cut + " count " + count + " shape " + shape, Arrays.copyOf(both, cut), count, stats);
                }
            }
        }
        stats.assertNone();
        System.out.println("Adv29 cuts: " + stats);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Property: random valid batches (Kafka's builder), random damage, CRC resealed
    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void randomDamageToKafkaBuiltBatchesMatchesKafka() {
        long seed0 = Long.getLong("adv29.seed", 0x29A5EEDL);
        System.out.println("Adv29 random seed " + seed0);
        SplittableRandom random = new SplittableRandom(seed0);
        Stats stats = new Stats();
        int cases = 0;
        while (cases < 25_000) { // a count, not a time: the same cases on every machine (~2 s here)
            long seed = random.nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            oneRandomCase(seed, r, stats);
            cases++;
        }
        stats.assertNone();
        System.out.println("Adv29 random cases " + cases + ": " + stats);
    }

    private static void oneRandomCase(long seed, SplittableRandom r, Stats stats) {
        int batches = 1 + r.nextInt(3);
        List<ByteBuffer> built = new ArrayList<>();
        long offset = r.nextInt(1000);
        for (int b = 0; b < batches; b++) {
            int n = 1 + r.nextInt(4);
            SimpleRecord[] recs = new SimpleRecord[n];
            for (int i = 0; i < n; i++) {
                recs[i] = new SimpleRecord(r.nextLong(1L << 42), bytes(r, size(r)), bytes(r, size(r)), headers(r));
            }
            ByteBuffer buf = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, offset, Compression.NONE, TimestampType.CREATE_TIME, recs).buffer();
            offset += n + r.nextInt(3);
            built.add(buf);
        }
        int victim = r.nextInt(batches);
        ByteBuffer v = built.get(victim);
        byte[] a = new byte[v.remaining()];
        v.duplicate().get(a);
        int mutations = 1 + r.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            if (a.length <= 62) {
                break;
            }
            int kind = r.nextInt(10);
            int at = 61 + r.nextInt(a.length - 61);
            switch (kind) {
                case 0, 1, 2 -> a[at] = (byte) r.nextInt(256); // one byte
                case 3 -> a[at] ^= (byte) (1 << r.nextInt(8)); // one bit
                case 4 -> { // a run
                    int len = 1 + r.nextInt(Math.min(12, a.length - at));
                    for (int i = 0; i < len; i++) {
                        a[at + i] = (byte) (r.nextBoolean() ? 0x80 | r.nextInt(128) : r.nextInt(128));
                    }
                }
                case 5 -> a[at] = (byte) (a[at] + (r.nextBoolean() ? 1 : -1)); // a size off by one (zig-zag: by ±1/2)
                case 6 -> a[at] = (byte) (a[at] + (r.nextBoolean() ? 2 : -2));
                case 7 -> { // the record count
                    ByteBuffer.wrap(a).putInt(57, r.nextInt(5) == 0 ? r.nextInt() : ByteBuffer.wrap(a).getInt(57) + r.nextInt(-2, 3));
                }
                case 8 -> { // cut the batch short (its length made to fit)
                    a = Arrays.copyOf(a, 61 + r.nextInt(a.length - 61));
                    ByteBuffer.wrap(a).putInt(8, a.length - 12);
                }
                default -> { // insert or delete a byte
                    if (r.nextBoolean() && a.length > 62) {
                        byte[] c = new byte[a.length - 1];
                        System.arraycopy(a, 0, c, 0, at);
                        System.arraycopy(a, at + 1, c, at, a.length - at - 1);
                        a = c;
                    } else {
                        byte[] c = new byte[a.length + 1];
                        System.arraycopy(a, 0, c, 0, at);
                        c[at] = (byte) r.nextInt(256);
                        System.arraycopy(a, at, c, at + 1, a.length - at);
                        a = c;
                    }
                    ByteBuffer.wrap(a).putInt(8, a.length - 12);
                }
            }
        }
        ByteBuffer damaged = ByteBuffer.wrap(a);
        resealCrc(damaged);
        built.set(victim, damaged);

        int lead = r.nextInt(4) == 0 ? 0 : r.nextInt(1, 300);
        byte fill = (byte) (r.nextBoolean() ? 0x80 : r.nextInt(256));
        int tailKind = r.nextInt(4);
        byte[] tail = switch (tailKind) {
            case 0 -> new byte[0];
            case 1 -> bytes(r, r.nextInt(12)); // less than a batch's length field needs
            case 2 -> { // part of a valid batch
                ByteBuffer more = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V2, offset, Compression.NONE, TimestampType.CREATE_TIME,
                        new SimpleRecord(1L, "x".getBytes(), "y".getBytes())).buffer();
                yield Arrays.copyOf(more.array(), r.nextInt(more.remaining()));
            }
            default -> new byte[0];
        };
        long from = r.nextInt(4) == 0 ? r.nextInt(1200) : 0;
        int total = 0;
        for (ByteBuffer b : built) {
            total += b.remaining();
        }
        byte[] big = new byte[lead + total + tail.length + r.nextInt(300)];
        Arrays.fill(big, fill);
        int p = lead;
        for (ByteBuffer b : built) {
            b.duplicate().get(big, p, b.remaining());
            p += b.remaining();
        }
        System.arraycopy(tail, 0, big, p, tail.length);
        p += tail.length;
        ByteBuffer response = ByteBuffer.wrap(big, lead, p - lead).slice();
        compare("seed " + seed, MemoryRecords.readableRecords(response), from, stats);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The comparison
    // ---------------------------------------------------------------------------------------------------------------

    /** Known, reported separately (see the findings above): Kafka reads a size below -1 as null, the walk refuses it. */

    static final class Stats {
        int compared;
        int equalLists;
        int bothCorrupt;
        int kafkaCrashed;
        final List<String> failures = new ArrayList<>();

        void assertNone() {
            assertThat(failures).as(failures.size() + " differences (first 20)").isEmpty();
        }

        @Override
        public String toString() {
            return "compared=" + compared + " equal=" + equalLists + " bothCorrupt=" + bothCorrupt + " kafkaCrashed=" + kafkaCrashed
                   ;
        }
    }

    private static void compare(String label, MemoryRecords records, long from, Stats stats) {
        stats.compared++;
        Object expected = kafka(records, from);
        String[] walkError = new String[1];
        Object got = walk(records, from, walkError);
        if (expected.equals(KAFKA_CRASHED)) {
            stats.kafkaCrashed++;
            if (got instanceof String s && s.startsWith("WALK_UNCHECKED")) {
                addFailure(stats, label + " from " + from + ": kafka crashed, walk " + got);
            }
            return;
        }
        if (expected.equals(got)) {
            if (got.equals(CORRUPT)) {
                stats.bothCorrupt++;
            } else {
                stats.equalLists++;
            }
            return;
        }
        addFailure(stats, label + " from " + from + ": kafka " + expected + " walk " + got + (walkError[0] == null ? "" : " (" + walkError[0] + ")")
                + " bytes " + hex(records.buffer()));
    }

    private static void addFailure(Stats stats, String what) {
        if (stats.failures.size() < 20) {
            stats.failures.add(what);
        }
    }

    /** Kafka's records under the consumer's rule the walk documents, or CORRUPT, or KAFKA_CRASHED (another exception). */
    static Object kafka(MemoryRecords records, long from) {
        try {
            List<String> out = new ArrayList<>();
            long walked = from;
            for (MutableRecordBatch b : records.batches()) {
                if (b.magic() < RecordBatch.MAGIC_VALUE_V2) {
                    return "OLD";
                }
                b.ensureValid();
                if (!b.isControlBatch()) {
                    for (Record r : b) {
                        if (r.offset() >= walked) {
                            out.add(r.offset() + ":" + text(r.key()) + "=" + text(r.value()));
                            walked = r.offset() + 1;
                        }
                    }
                }
                walked = Math.max(walked, b.nextOffset());
            }
            return out;
        } catch (CorruptRecordException | InvalidRecordException e) { // Kafka's record reader throws the latter
            return CORRUPT;
        } catch (RuntimeException e) {
            if (Boolean.getBoolean("adv29.debug")) {
                e.printStackTrace();
            }
            return KAFKA_CRASHED;
        }
    }

    static Object walk(MemoryRecords records, long from) {
        return walk(records, from, new String[1]);
    }

    private static Object walk(MemoryRecords records, long from, String[] error) {
        List<String> out = new ArrayList<>();
        try {
            BatchWalk walk = new BatchWalk(0, records, from, List.of(), true, BufferSupplier.create());
            int guard = 0;
            while (walk.ready()) {
                out.add(walk.view().offset() + ":" + text(walk.view().key()) + "=" + text(walk.view().value()));
                walk.take();
                if (++guard > 1_000_000) {
                    return "WALK_UNCHECKED endless";
                }
            }
            return out;
        } catch (CorruptRecordException e) {
            error[0] = e.getMessage();
            return CORRUPT;
        } catch (BatchWalk.OldFormatException e) {
            return "OLD";
        } catch (Throwable e) {
            return "WALK_UNCHECKED " + e;
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Building records and batches by hand
    // ---------------------------------------------------------------------------------------------------------------

    /** A record's fields; parts(): attributes, ts delta, offset delta, key size, key, value size, value, header count, headers. */
    static final class Rec {
        long tsDelta = 0;
        int offsetDelta = 0;
        byte[] key = {'k'};
        byte[] value = {'v'};
        byte[][][] headers = {};
        private String name = "plain";

        Rec named(String n) {
            name = n;
            return this;
        }

        byte[][] parts() {
            List<byte[]> p = new ArrayList<>();
            p.add(new byte[] {0});
            p.add(zzLong(tsDelta));
            p.add(zz(offsetDelta));
            p.add(zz(key == null ? -1 : key.length));
            p.add(key == null ? new byte[0] : key);
            p.add(zz(value == null ? -1 : value.length));
            p.add(value == null ? new byte[0] : value);
            p.add(zz(headers.length));
            for (byte[][] h : headers) {
                p.add(zz(h[0].length));
                p.add(h[0]);
                p.add(zz(h[1] == null ? -1 : h[1].length));
                p.add(h[1] == null ? new byte[0] : h[1]);
            }
            return p.toArray(new byte[0][]);
        }

        /** Fields that are varints (not the attributes byte nor a key's, value's or header's bytes). */
        boolean isVarField(int i) {
            return i == 1 || i == 2 || i == 3 || i == 5 || i == 7 || (i >= 8 && (i - 8) % 2 == 0);
        }

        byte[] encode(byte[][] parts, Integer length) {
            byte[] body = cat(parts);
            return cat(zz(length == null ? body.length : length), body);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static int bodyLength(byte[][] parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        return n;
    }

    /** Record shapes whose sizes straddle the one/two/three-byte varint lines. */
    static List<Rec> shapes() {
        List<Rec> shapes = new ArrayList<>();
        shapes.add(new Rec().named("plain"));
        Rec nulls = new Rec().named("nulls");
        nulls.key = null;
        nulls.value = null;
        shapes.add(nulls);
        for (int size : new int[] {31, 32, 63, 64, 8191}) {
            Rec s = new Rec().named("key" + size + "value" + (size + 1));
            s.key = filled(size, 'a');
            s.value = filled(size + 1, 'b');
            s.offsetDelta = size;
            s.tsDelta = size;
            shapes.add(s);
        }
        Rec big = new Rec().named("value8192");
        big.value = filled(8192, 'c');
        shapes.add(big);
        Rec h = new Rec().named("headers");
        h.headers = new byte[][][] {{"h1".getBytes(), "x".getBytes()}, {new byte[0], null}, {filled(64, 'h'), filled(63, 'i')}};
        shapes.add(h);
        Rec neg = new Rec().named("negDeltas");
        neg.tsDelta = -64;
        neg.offsetDelta = 0;
        shapes.add(neg);
        return shapes;
    }

    /** Compares a damaged record (plus a second one after it) in several layouts: alone, second in its batch, inside a larger array, followed by more. */
    private static void compareInLayouts(String label, List<Rec> ignored, byte[] record, Stats stats) {
        byte[] second = new Rec().encode(new Rec().parts(), null);
        // offsets of the second record: its delta 0 as given; a distinct offset delta for it
        byte[][] secondParts = new Rec().parts();
        secondParts[2] = zz(1);
        second = new Rec().encode(secondParts, null);
        compareRaw(label + " alone", record, 1, stats);
        compareRaw(label + " then another", cat(record, second), 2, stats);
        byte[][] firstParts = new Rec().parts();
        firstParts[2] = zz(0);
        byte[] first = new Rec().encode(firstParts, null);
        compareRaw(label + " after another", cat(first, record), 2, stats);
    }

    /** The records region as one batch (count given), in three layouts: at 0, inside a larger garbage-filled array followed by another batch, and followed by a partial batch. */
    private static void compareRaw(String label, byte[] recordsRegion, int count, Stats stats) {
        ByteBuffer b = batch(100, count, recordsRegion);
        byte[] one = new byte[b.remaining()];
        b.duplicate().get(one);
        compare(label + " [at 0]", MemoryRecords.readableRecords(ByteBuffer.wrap(one)), 0, stats);

        ByteBuffer next = batch(200, 1, new Rec().encode(new Rec().parts(), null));
        byte[] nextBytes = new byte[next.remaining()];
        next.duplicate().get(nextBytes);
        byte[] big = new byte[37 + one.length + nextBytes.length + 19];
        Arrays.fill(big, (byte) 0x80);
        System.arraycopy(one, 0, big, 37, one.length);
        System.arraycopy(nextBytes, 0, big, 37 + one.length, nextBytes.length);
        compare(label + " [inside, then a batch]", MemoryRecords.readableRecords(ByteBuffer.wrap(big, 37, one.length + nextBytes.length).slice()), 0, stats);

        byte[] partial = Arrays.copyOf(one, one.length + 30);
        System.arraycopy(nextBytes, 0, partial, one.length, 30);
        compare(label + " [then a partial batch]", MemoryRecords.readableRecords(ByteBuffer.wrap(partial)), 101, stats);
    }

    /** A v2 batch (no producer, not transactional, uncompressed) of these record bytes, its CRC right. */
    static ByteBuffer batch(long baseOffset, int count, byte[] recordsRegion) {
        ByteBuffer b = ByteBuffer.allocate(61 + recordsRegion.length);
        b.putLong(baseOffset);
        b.putInt(49 + recordsRegion.length);
        b.putInt(0); // partition leader epoch
        b.put(RecordBatch.MAGIC_VALUE_V2);
        b.putInt(0); // crc
        b.putShort((short) 0); // attributes
        b.putInt(Math.max(0, count - 1)); // last offset delta
        b.putLong(1000L);
        b.putLong(1000L);
        b.putLong(-1L); // producer id
        b.putShort((short) -1);
        b.putInt(-1);
        b.putInt(count);
        b.put(recordsRegion);
        b.flip();
        resealCrc(b);
        return b;
    }

    static byte[] zz(int v) {
        return unsigned(((long) ((v << 1) ^ (v >> 31))) & 0xffffffffL);
    }

    static byte[] zzLong(long v) {
        return unsigned((v << 1) ^ (v >> 63));
    }

    private static byte[] unsigned(long z) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        while ((z & ~0x7fL) != 0) {
            o.write((int) ((z & 0x7f) | 0x80));
            z >>>= 7;
        }
        o.write((int) z);
        return o.toByteArray();
    }

    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    private static int size(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> 62 + r.nextInt(4);
            case 3 -> 8190 + r.nextInt(4);
            default -> r.nextInt(20);
        };
    }

    private static byte[] bytes(SplittableRandom r, int n) {
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + r.nextInt(26));
        }
        return b;
    }

    private static Header[] headers(SplittableRandom r) {
        int n = r.nextInt(4) == 0 ? r.nextInt(4) : 0;
        Header[] h = new Header[n];
        for (int i = 0; i < n; i++) {
            int ks = Math.max(0, size(r));
            h[i] = new RecordHeader(new String(bytes(r, Math.min(ks, 70))), bytes(r, size(r)));
        }
        return h;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    static String hex(ByteBuffer buf) {
        ByteBuffer d = buf.duplicate();
        if (d.remaining() > 400) {
            return "(" + d.remaining() + " bytes)";
        }
        byte[] b = new byte[d.remaining()];
        d.get(b);
        return hex(b);
    }
}
