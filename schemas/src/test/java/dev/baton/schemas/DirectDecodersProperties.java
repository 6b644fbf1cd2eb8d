package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Failure;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.Refusal;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.Superseded;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.registry.SchemaRegistry;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link DirectDecoders} against Avro's own reader of the same schema, record by record: random events (every optional
 * field present or absent, strings outside ASCII, nested failures), the examples, and the same bytes cut short, with
 * bits flipped, or with a random body. Either both read the same value, or both refuse the bytes for the same reason. Replay a failure from
 * the seed jqwik prints.
 */
class DirectDecodersProperties {

    private static final SchemaRegistry REGISTRY = SchemaRegistry.forUrl("mem://direct-decoders", Map.of());
    private static final List<Class<? extends SpecificRecord>> TYPES = List.of(DispatchCommand.class, WorkerEvent.class, ActivityTask.class,
            Outcome.class, SiteState.class);

    @Property(tries = 3000)
    void shouldReadWhatAvroReadsFromAnyEvent(@ForAll long seed, @ForAll @IntRange(min = 0, max = 4) int type) {
        SpecificRecord event = randomEvent(TYPES.get(type), new Random(seed));

        byte[] body = body(event);

        assertThat(direct(event.getClass(), body)).isEqualTo(avro(event.getClass(), body)).isEqualTo(new Read(event));
    }

    @Property(tries = 5000)
    void shouldRefuseWhatAvroRefusesAndReadWhatItReadsFromDamagedBytes(@ForAll long seed, @ForAll @IntRange(min = 0, max = 4) int type,
                                                                        @ForAll @IntRange(min = 0, max = 600) int cut,
                                                                        @ForAll @IntRange(min = 0, max = 600) int flip, @ForAll byte mask) {
        Random random = new Random(seed);
        SpecificRecord event = randomEvent(TYPES.get(type), random);
        byte[] body = body(event);
        body = Arrays.copyOf(body, Math.min(body.length, cut));
        if (body.length > 0) {
            body[flip % body.length] ^= mask;
        }

        assertThat(direct(event.getClass(), body)).isEqualTo(avro(event.getClass(), body));
    }

    @Property(tries = 3000)
    void shouldRefuseWhatAvroRefusesFromRandomBytes(@ForAll byte[] body, @ForAll @IntRange(min = 0, max = 4) int type) {
        assertThat(direct(TYPES.get(type), body)).isEqualTo(avro(TYPES.get(type), body));
    }

    /** Varints at every length, mostly bytes with the continuation bit set: the fifth (int) or tenth (long) byte's rule. */
    @Property(tries = 5000)
    void shouldReadEveryVarintAsAvroDoes(@ForAll long seed) {
        Random r = new Random(seed);
        byte[] bytes = new byte[r.nextInt(13)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 0x80 | r.nextInt(128));
        }

        assertThat(varints(bytes, true)).isEqualTo(avroVarints(bytes, true));
        assertThat(varints(bytes, false)).isEqualTo(avroVarints(bytes, false));
    }

    /** Avro's path holds a row to the depth bound the direct decoder reads with: in any of its three failures. */
    @Test
    void shouldHoldEveryFailureOfARowReadByAvroToTheBound() throws Exception {
        Random r = new Random(11);
        SiteState atBound = (SiteState) randomEvent(SiteState.class, r);
        atBound.setOutcomeFailure(null);
        atBound.setPreviousRun(null);
        PreviousRun earlier = previousRun(r);
        earlier.setFailure(failure(r, EventSerde.MAX_FAILURE_DEPTH - 1));
        atBound.setEarlierRuns(List.of(earlier));
        DirectDecoders.requireFailureDepth(atBound);

        earlier.setFailure(failure(r, EventSerde.MAX_FAILURE_DEPTH));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DirectDecoders.requireFailureDepth(atBound))
                .hasMessageContaining("nest deeper than " + EventSerde.MAX_FAILURE_DEPTH);
    }

    /** The fewest bytes per item the row's arrays are checked with are Avro's own count for the item's schema. */
    @Test
    void shouldWeighArrayItemsAsAvroDoes() {
        assertThat(DirectDecoders.minItemBytes(Waiter.class)).isEqualTo(avroMinItemBytes(Waiter.getClassSchema()));
        assertThat(DirectDecoders.minItemBytes(PreviousRun.class)).isEqualTo(avroMinItemBytes(PreviousRun.getClassSchema()));
        assertThat(DirectDecoders.minItemBytes(Refusal.class)).isEqualTo(avroMinItemBytes(Refusal.getClassSchema()));
    }

    /** The fewest bytes left for which Avro's check before reading an array block lets one item of {@code item} through. */
    private static int avroMinItemBytes(org.apache.avro.Schema item) {
        for (int bytes = 0; bytes < 100; bytes++) {
            try {
                org.apache.avro.generic.GenericDatumReader.ensureAvailableCollectionBytes(
                        DecoderFactory.get().binaryDecoder(new byte[bytes], null), 1, item);
                return bytes;
            } catch (java.io.EOFException e) {
                // not enough for one item yet
            }
        }
        throw new AssertionError("no size up to 100 bytes holds one " + item.getName());
    }

    @Test
    void shouldReadEveryBooleanByteAsAvroDoes() throws Exception {
        for (int b = 0; b < 256; b++) {
            byte[] one = {(byte) b};
            assertThat(new BodyReader(one, 0, 1).readBoolean()).as("byte %d", b)
                    .isEqualTo(DecoderFactory.get().binaryDecoder(one, null).readBoolean());
        }
    }

    /** The ints (or longs) read one after another until one fails; the failure as "truncated" or "corrupt". */
    private static List<Object> varints(byte[] bytes, boolean ints) {
        BodyReader in = new BodyReader(bytes, 0, bytes.length);
        List<Object> read = new ArrayList<>();
        try {
            while (!in.atEnd()) {
                read.add(ints ? (Object) in.readInt() : (Object) in.readLong());
            }
        } catch (Exception e) {
            read.add(Read.refused(e));
        }
        return read;
    }

    private static List<Object> avroVarints(byte[] bytes, boolean ints) {
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
        List<Object> read = new ArrayList<>();
        try {
            while (!in.isEnd()) {
                read.add(ints ? (Object) in.readInt() : (Object) in.readLong());
            }
        } catch (Exception e) {
            read.add(Read.refused(e));
        }
        return read;
    }

    @Test
    void shouldReadEveryExampleAsAvroDoes() {
        for (EventExamples.Example example : EventExamples.all()) {
            if (DirectDecoders.of(example.event().getClass()) != null) {
                byte[] body = body(example.event());
                assertThat(direct(example.event().getClass(), body)).as(example.topic()).isEqualTo(new Read(example.event()));
            }
        }
    }

    @Test
    void shouldGoThroughTheSerdeForTheTypesOwnSchema() {
        for (Class<? extends SpecificRecord> type : TYPES) {
            SpecificRecord event = randomEvent(type, new Random(7));
            @SuppressWarnings("unchecked")
            EventSerde<SpecificRecord> serde = EventSerde.of((Class<SpecificRecord>) type, REGISTRY);

            assertThat(serde.decode(topicOf(type), serde.encode(topicOf(type), event))).isEqualTo(event);
        }
    }

    /**
     * What reading a body gave: the value, or why it was refused as {@link EventSerde} reports it: truncated (the body
     * ended early) or corrupt (anything else, trailing bytes included). The morsel engine's projected reader gives
     * EventSerde's reason too, so the reason must not change with the decoder.
     */
    private record Read(Object value) {
        static final Read CORRUPT = new Read("corrupt");
        static final Read TRUNCATED = new Read("truncated");

        static Read refused(Exception e) {
            return e instanceof java.io.EOFException ? TRUNCATED : CORRUPT;
        }
    }

    private static Read direct(Class<?> type, byte[] body) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        DirectDecoders.Decoder<?> decoder = DirectDecoders.of((Class) type);
        BodyReader in = new BodyReader(body, 0, body.length);
        try {
            Object value = decoder.read(in);
            return in.atEnd() ? new Read(value) : Read.CORRUPT;
        } catch (Exception e) {
            return Read.refused(e);
        }
    }

    private static Read avro(Class<?> type, byte[] body) {
        SpecificDatumReader<Object> reader = new SpecificDatumReader<>(SpecificData.get().getSchema(type));
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, null);
        try {
            Object value = reader.read(null, decoder);
            return decoder.isEnd() ? new Read(value) : Read.CORRUPT;
        } catch (Exception e) {
            return Read.refused(e);
        }
    }

    /** A topic per type: the registry keeps each topic's subject to one type. */
    private static String topicOf(Class<?> type) {
        return "direct-" + type.getSimpleName();
    }

    /** The Avro body of {@code event}, without the wire format's header. */
    @SuppressWarnings("unchecked")
    private static byte[] body(SpecificRecord event) {
        EventSerde<SpecificRecord> serde = EventSerde.of((Class<SpecificRecord>) event.getClass(), REGISTRY);
        byte[] framed = serde.encode(topicOf(event.getClass()), event);
        return Arrays.copyOfRange(framed, EventSerde.HEADER_BYTES, framed.length);
    }

    private static SpecificRecord randomEvent(Class<? extends SpecificRecord> type, Random r) {
        if (type == DispatchCommand.class) {
            return new DispatchCommand(pick(DispatchKind.values(), r), site(r), string(r), string(r), r.nextInt(), string(r), string(r),
                    string(r), string(r), r.nextBoolean() ? string(r) : null, r.nextBoolean() ? payload(r) : null,
                    r.nextBoolean() ? retryPolicy(r) : null, r.nextBoolean() ? timeouts(r) : null, number(r));
        }
        if (type == ActivityTask.class) {
            return new ActivityTask(site(r), r.nextInt(), r.nextInt(), string(r), string(r), string(r), string(r), r.nextBoolean() ? string(r) : null,
                    r.nextBoolean() ? payload(r) : null, r.nextBoolean() ? number(r) : null, r.nextBoolean() ? number(r) : null, number(r),
                    r.nextBoolean() ? number(r) : null, r.nextBoolean() ? payload(r) : null, r.nextBoolean() ? string(r) : null);
        }
        if (type == SiteState.class) {
            return new SiteState(pick(SiteStatus.values(), r), r.nextInt(), r.nextInt(), string(r), string(r), string(r), string(r), string(r),
                    string(r), r.nextBoolean() ? string(r) : null, r.nextBoolean() ? payload(r) : null, r.nextBoolean() ? retryPolicy(r) : null,
                    r.nextBoolean() ? timeouts(r) : null, r.nextBoolean() ? string(r) : null, r.nextInt(), number(r), number(r), longs(r),
                    longs(r), r.nextBoolean() ? pick(OutcomeStatus.values(), r) : null, r.nextBoolean() ? payload(r) : null,
                    r.nextBoolean() ? string(r) : null, r.nextBoolean() ? string(r) : null, waiters(r), r.nextBoolean() ? string(r) : null,
                    r.nextBoolean() ? bytes(r) : null, r.nextInt(), r.nextBoolean() ? new Superseded(r.nextInt(), r.nextInt(), waiters(r)) : null,
                    number(r), number(r), r.nextBoolean() ? previousRun(r) : null, r.nextBoolean() ? failure(r, r.nextInt(3)) : null,
                    r.nextBoolean() ? payload(r) : null, list(r, () -> previousRun(r)), list(r, () -> new Refusal(string(r), r.nextInt(), string(r))));
        }
        if (type == Outcome.class) {
            return new Outcome(pick(OutcomeStatus.values(), r), site(r), string(r), string(r), r.nextInt(), r.nextBoolean() ? payload(r) : null,
                    r.nextBoolean() ? string(r) : null, r.nextBoolean(), r.nextBoolean() ? string(r) : null, number(r),
                    r.nextBoolean() ? failure(r, r.nextInt(4)) : null);
        }
        return new WorkerEvent(pick(WorkerEventKind.values(), r), site(r), r.nextInt(), r.nextInt(), string(r), string(r),
                r.nextBoolean() ? payload(r) : null, r.nextBoolean() ? string(r) : null, r.nextBoolean() ? bytes(r) : null, number(r),
                r.nextBoolean() ? failure(r, r.nextInt(4)) : null, r.nextBoolean() ? string(r) : null);
    }

    private static PreviousRun previousRun(Random r) {
        return new PreviousRun(r.nextInt(), pick(OutcomeStatus.values(), r), r.nextBoolean() ? string(r) : null,
                r.nextBoolean() ? payload(r) : null, waiters(r), r.nextBoolean() ? failure(r, r.nextInt(3)) : null);
    }

    private static List<Waiter> waiters(Random r) {
        return list(r, () -> new Waiter(string(r), string(r)));
    }

    private static <T> List<T> list(Random r, java.util.function.Supplier<T> item) {
        List<T> items = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            items.add(item.get());
        }
        return items;
    }

    private static Map<String, Long> longs(Random r) {
        Map<String, Long> entries = new java.util.HashMap<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            entries.put(string(r), number(r));
        }
        return entries;
    }

    private static <E> E pick(E[] values, Random r) {
        return values[r.nextInt(values.length)];
    }

    private static SiteRef site(Random r) {
        return new SiteRef(string(r), string(r), string(r));
    }

    private static Payload payload(Random r) {
        return new Payload(bytes(r), string(r));
    }

    private static RetryPolicy retryPolicy(Random r) {
        List<String> prefixes = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            prefixes.add(string(r));
        }
        return new RetryPolicy(number(r), r.nextBoolean() ? r.nextDouble() * 10 : -0.0, number(r), r.nextInt(), prefixes);
    }

    private static Timeouts timeouts(Random r) {
        return new Timeouts(r.nextBoolean() ? number(r) : null, r.nextBoolean() ? number(r) : null, r.nextBoolean() ? number(r) : null,
                r.nextBoolean() ? number(r) : null);
    }

    private static Failure failure(Random r, int causes) {
        return new Failure(string(r), string(r), r.nextBoolean() ? payload(r) : null, string(r), causes == 0 ? null : failure(r, causes - 1));
    }

    /** Small, large and extreme numbers, so every varint length is written. */
    private static long number(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextInt(200) - 100;
            case 1 -> r.nextLong();
            case 2 -> r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default -> System.currentTimeMillis() + r.nextInt(1_000_000);
        };
    }

    /** Empty, ASCII, Latin-1, or beyond the BMP (whole code points: an unpaired surrogate is not a string Avro keeps). */
    private static String string(Random r) {
        int length = r.nextInt(3) == 0 ? 0 : r.nextInt(40);
        int[] alphabet = switch (r.nextInt(3)) {
            case 0 -> "abcdefghijklmnopqrstuvwxyz0123456789-_/".codePoints().toArray();
            case 1 -> "aéßøü€中".codePoints().toArray();
            default -> new int[] {'x', 0x1F600, 'y', 0x10FFFF};
        };
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            s.appendCodePoint(alphabet[r.nextInt(alphabet.length)]);
        }
        return s.toString();
    }

    private static ByteBuffer bytes(Random r) {
        byte[] b = new byte[r.nextInt(3) == 0 ? 0 : r.nextInt(64)];
        r.nextBytes(b);
        return ByteBuffer.wrap(b);
    }
}
