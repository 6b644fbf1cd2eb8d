package dev.baton.morsel.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.embedded.EmbeddedKafka;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicSpec;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * The fetch reader hands out exactly what a {@code read_committed} {@code KafkaConsumer} hands out, in its order,
 * for any offset range: random histories (transactions committed and aborted, interleaved with plain writes and with
 * each other, every compression type, null keys and values, headers, several partitions) read as random morsels,
 * consecutive (no fetch between them), out of order (a seek) and returned to. Fetches are a few KiB so ranges and
 * batches straddle responses. A failure prints its seed; {@code @Property(seed = ...)} replays it.
 */
class FetchReaderDifferentialIT {

    private static final String[] COMPRESSIONS = {"none", "gzip", "snappy", "lz4", "zstd"};
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private static EmbeddedKafka kafka;
    private static final List<KafkaProducer<byte[], byte[]>> plain = new ArrayList<>();
    private static final List<KafkaProducer<byte[], byte[]>> transactional = new ArrayList<>();

    /** One record as the consumer or the reader handed it out. */
    record Seen(int partition, long offset, String key, String value) {
        static Seen of(RecordView r) {
            return new Seen(r.partition(), r.offset(), text(r.key()), text(r.value()));
        }

        static Seen of(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
            return new Seen(r.partition(), r.offset(), text(r.key()), text(r.value()));
        }

        private static String text(ByteBuffer b) {
            if (b == null) {
                return null;
            }
            byte[] a = new byte[b.remaining()];
            b.duplicate().get(a);
            return new String(a, StandardCharsets.ISO_8859_1);
        }
    }

    @BeforeContainer
    static void start() {
        kafka = EmbeddedKafka.builder().build().start();
        for (String compression : COMPRESSIONS) {
            plain.add(producer(compression, null));
            KafkaProducer<byte[], byte[]> t = producer(compression, "differential-" + compression);
            t.initTransactions();
            transactional.add(t);
        }
    }

    @AfterContainer
    static void stop() {
        plain.forEach(KafkaProducer::close);
        transactional.forEach(KafkaProducer::close);
        kafka.close();
    }

    @Property(tries = 12, shrinking = ShrinkingMode.OFF)
    void shouldHandOutWhatAReadCommittedConsumerHandsOutForAnyRanges(@ForAll long seed) throws Exception {
        Random random = new Random(seed);
        String topic = "differential-" + TOPICS.incrementAndGet();
        int partitions = 1 + random.nextInt(3);
        try (Admin admin = Admin.create(config())) {
            new TopicCreator(admin).create(List.of(new TopicSpec(topic, partitions, (short) 1, Map.of())));
        }
        writeHistory(random, topic, partitions);
        Map<Integer, List<Seen>> expected = readWithConsumer(topic, partitions);

        List<OffsetRange> ranges = morsels(random, topic, expected);
        Map<String, Object> reader = new HashMap<>(ScanConsumers.readerConfig(config()));
        int fetchBytes = 512 + random.nextInt(8 * 1024);
        reader.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, fetchBytes);
        reader.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, fetchBytes);
        try (FetchReader fetchReader = new FetchReader(reader, Duration.ofSeconds(30))) {
            for (OffsetRange range : ranges) {
                List<Seen> got = new ArrayList<>();
                long handed = fetchReader.scan(range, r -> got.add(Seen.of(r)), () -> false);
                List<Seen> want = expected.get(range.partition()).stream()
                        .filter(s -> s.offset() >= range.from() && s.offset() < range.to()).toList();
                assertThat(got).as("range %s (fetches of %d bytes, seed %d)", range, fetchBytes, seed).isEqualTo(want);
                assertThat(handed).isEqualTo(want.size());
            }
        }
    }

    /** Plain bursts, and transactions (committed or aborted) interleaved with plain writes and with each other. */
    private static void writeHistory(Random random, String topic, int partitions) {
        int steps = 10 + random.nextInt(30);
        for (int s = 0; s < steps; s++) {
            KafkaProducer<byte[], byte[]> p = plain.get(random.nextInt(plain.size()));
            if (random.nextInt(3) == 0) {
                burst(random, p, topic, partitions);
                p.flush();
                continue;
            }
            int a = random.nextInt(transactional.size());
            int b = random.nextInt(transactional.size());
            List<KafkaProducer<byte[], byte[]>> open = a == b ? List.of(transactional.get(a)) : List.of(transactional.get(a), transactional.get(b));
            open.forEach(KafkaProducer::beginTransaction);
            for (KafkaProducer<byte[], byte[]> t : open) {
                burst(random, t, topic, partitions);
                if (random.nextBoolean()) {
                    burst(random, p, topic, partitions);
                }
            }
            p.flush();
            for (KafkaProducer<byte[], byte[]> t : open) {
                if (random.nextBoolean()) {
                    t.commitTransaction();
                } else {
                    t.abortTransaction();
                }
            }
        }
    }

    private static void burst(Random random, KafkaProducer<byte[], byte[]> p, String topic, int partitions) {
        int n = 1 + random.nextInt(random.nextBoolean() ? 5 : 60);
        for (int i = 0; i < n; i++) {
            byte[] key = random.nextInt(8) == 0 ? null : bytes(random, 1 + random.nextInt(20));
            byte[] value = random.nextInt(10) == 0 ? null : bytes(random, random.nextInt(random.nextBoolean() ? 40 : 400));
            RecordHeaders headers = new RecordHeaders();
            for (int h = random.nextInt(3); h > 0; h--) {
                headers.add("h" + h, random.nextBoolean() ? null : bytes(random, random.nextInt(10)));
            }
            p.send(new ProducerRecord<>(topic, random.nextInt(partitions), null, key, value, headers));
        }
    }

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        if (random.nextBoolean()) {
            for (int i = 0; i < length; i++) {
                b[i] = (byte) ('a' + (b[i] & 3)); // compressible
            }
        }
        return b;
    }

    private static Map<Integer, List<Seen>> readWithConsumer(String topic, int partitions) {
        Map<Integer, List<Seen>> seen = new HashMap<>();
        try (KafkaConsumer<ByteBuffer, ByteBuffer> c = new KafkaConsumer<>(ScanConsumers.readerConfig(config()),
                new ByteBufferDeserializer(), new ByteBufferDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
                seen.put(p, new ArrayList<>());
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("the consumer reads to the end offsets").isLessThan(deadline);
                for (ConsumerRecord<ByteBuffer, ByteBuffer> r : c.poll(Duration.ofMillis(200))) {
                    seen.get(r.partition()).add(Seen.of(r));
                }
            }
            ends.forEach((tp, end) -> seen.get(tp.partition()).add(new Seen(tp.partition(), end, "end", null)));
        }
        return seen;
    }

    /**
     * Each partition cut at random offsets (mid-batch as often as not) into ranges, read mostly in order (consecutive
     * ranges go on without a fetch), some out of order (a seek, or a return to a partition left behind).
     */
    private static List<OffsetRange> morsels(Random random, String topic, Map<Integer, List<Seen>> expected) {
        List<OffsetRange> ranges = new ArrayList<>();
        expected.forEach((p, seen) -> {
            long end = seen.remove(seen.size() - 1).offset(); // the end marker readWithConsumer added
            long from = 0;
            while (from < end) {
                long to = Math.min(end, from + 1 + random.nextInt((int) Math.max(1, end / 3)));
                ranges.add(new OffsetRange(topic, p, from, to));
                from = to;
            }
            if (end == 0) {
                ranges.add(new OffsetRange(topic, p, 0, 0));
            }
        });
        if (random.nextBoolean()) {
            java.util.Collections.sort(ranges, java.util.Comparator.comparingLong(OffsetRange::from)); // partitions interleaved
        }
        for (int swaps = random.nextInt(4); swaps > 0 && ranges.size() > 1; swaps--) {
            java.util.Collections.swap(ranges, random.nextInt(ranges.size()), random.nextInt(ranges.size()));
        }
        if (!ranges.isEmpty() && random.nextBoolean()) {
            ranges.add(ranges.get(random.nextInt(ranges.size()))); // one range read again
        }
        return ranges;
    }

    private static KafkaProducer<byte[], byte[]> producer(String compression, String transactionalId) {
        Map<String, Object> c = new HashMap<>(config());
        c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 2048);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        if (transactionalId != null) {
            c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", kafka.bootstrapServers());
    }
}
