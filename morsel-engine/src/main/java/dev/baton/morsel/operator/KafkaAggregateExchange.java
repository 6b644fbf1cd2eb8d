package dev.baton.morsel.operator;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An aggregate's exchange over the partitions of a Kafka topic ({@code baton.exchange.<job>},
 * created by the caller with {@code P} partitions): each node {@link #send}s its partial groups,
 * group key {@code k} to partition {@link HashExchange#assign} (that is {@code partitionOf(k, P)}
 * unless the partition is hot and spills), and whoever owns partition {@code p} {@link #merge}s it.
 * {@link #broadcast} writes every group to every partition, for a small side every node needs.
 *
 * <p>A record is one group: the key as 8 big-endian bytes, the value {@code slots} big-endian longs.
 * A spilled key may sit in two partitions, so {@link #gather} merges equal keys across partitions.
 * A record of the wrong size fails the merge with an {@link IllegalStateException} naming its
 * partition and offset: the exchange topic belongs to one job, so a foreign record is a bug to stop
 * on, not data to skip. Not thread-safe; one instance per sending or merging thread.
 */
public final class KafkaAggregateExchange {

    private static final Duration POLL = Duration.ofMillis(200);
    /** 90 s of empty polls: past a fetch the client sends again after request.timeout.ms (30 s), as a topic scan waits. */
    private static final int MAX_EMPTY_POLLS = 450;

    private final Map<String, Object> clientConfig;
    private final String topic;
    private final int partitions;
    private final int slots;

    public KafkaAggregateExchange(Map<String, Object> clientConfig, String topic, int partitions, int slots) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be >= 1, was " + slots);
        }
        this.clientConfig = Map.copyOf(clientConfig);
        this.topic = topic;
        this.partitions = partitions;
        this.slots = slots;
    }

    /** Sends every group of {@code partial}; returns how many groups went to each partition and how many spilled. */
    public AggregateExchange.Layout send(AggregateResult partial, int hotThreshold) {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            return send(producer, partial, hotThreshold, List.of());
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not write partials to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while writing partials to " + topic);
        }
    }

    /**
     * Sends every group of {@code partial} through the caller's {@code producer}, each record carrying
     * {@code headers} (an engine node tags its split and execution), and returns once every record is
     * acknowledged: the partials are durable when this returns.
     *
     * @throws ExecutionException when a record could not be written
     */
    public AggregateExchange.Layout send(KafkaProducer<byte[], byte[]> producer, AggregateResult partial, int hotThreshold, Iterable<Header> headers)
            throws InterruptedException, ExecutionException {
        checkSlots(partial);
        int[] target = HashExchange.assign(partial.rowKeys(), partitions, hotThreshold);
        int[] counts = new int[partitions];
        int spilled = 0;
        List<Future<RecordMetadata>> sends = new ArrayList<>(partial.rows());
        for (int r = 0; r < partial.rows(); r++) {
            sends.add(producer.send(new ProducerRecord<>(topic, target[r], key(partial.key(r)), value(partial, r), headers)));
            counts[target[r]]++;
            spilled += target[r] != HashExchange.partitionOf(partial.key(r), partitions) ? 1 : 0;
        }
        producer.flush();
        for (Future<RecordMetadata> f : sends) {
            f.get();
        }
        return new AggregateExchange.Layout(counts, spilled);
    }

    /**
     * The hot threshold for a partial of {@code groups} groups: a quarter above the fair share
     * {@code groups / P}, and never below {@link HashExchange#DEFAULT_HOT_THRESHOLD}. A uniform hash
     * stays under it; keys that crowd one partition spill the excess to the least-loaded ones.
     */
    public static int hotThreshold(int groups, int partitions) {
        long fair = ((long) groups + partitions - 1) / partitions;
        return (int) Math.max(HashExchange.DEFAULT_HOT_THRESHOLD, fair + (fair >> 2));
    }

    /** Sends every group to every partition. */
    public void broadcast(AggregateResult rows) {
        checkSlots(rows);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int p = 0; p < partitions; p++) {
                for (int r = 0; r < rows.rows(); r++) {
                    producer.send(new ProducerRecord<>(topic, p, key(rows.key(r)), value(rows, r)));
                }
            }
            producer.flush();
        }
    }

    /** Reads partition {@code partition} up to its end offset now and merges its groups, keys ascending. */
    public AggregateResult merge(int partition) {
        return merge(partition, r -> true, () -> false);
    }

    /**
     * As {@link #merge(int)}, counting only the records {@code accepted} passes (an engine node's
     * merge keeps the partials of the executions in its job's manifest) and checking
     * {@code cancelled} after every poll.
     *
     * @throws CancellationException once {@code cancelled} is true
     */
    public AggregateResult merge(int partition, Predicate<ConsumerRecord<byte[], byte[]>> accepted, BooleanSupplier cancelled) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            return merge(consumer, partition, accepted, cancelled);
        }
    }

    /** Merges every partition (one consumer, partition after partition) and combines a key found in several (after a spill). */
    public AggregateResult gather() {
        List<AggregateResult> runs = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            for (int p = 0; p < partitions; p++) {
                runs.add(merge(consumer, p, r -> true, () -> false));
            }
        }
        return AggregateExchange.gather(runs.toArray(AggregateResult[]::new), slots);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private AggregateResult merge(KafkaConsumer<byte[], byte[]> consumer, int partition, Predicate<ConsumerRecord<byte[], byte[]>> accepted,
            BooleanSupplier cancelled) {
        LongAggTable table = new LongAggTable(slots, 1024);
        long[] row = new long[slots];
        TopicPartition tp = new TopicPartition(topic, partition);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        int emptyPolls = 0;
        while (consumer.position(tp) < end) {
            List<ConsumerRecord<byte[], byte[]>> records = consumer.poll(POLL).records(tp);
            if (cancelled.getAsBoolean()) {
                throw new CancellationException("merge of " + tp + " cancelled at offset " + consumer.position(tp) + " of " + end);
            }
            emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
            if (emptyPolls > MAX_EMPTY_POLLS) {
                throw new IllegalStateException("no progress reading " + tp + " at offset " + consumer.position(tp) + " of " + end);
            }
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (r.offset() < end && accepted.test(r)) {
                    table.addAll(decodeKey(r), decodeValue(r, row), 0);
                }
            }
        }
        return table.sorted();
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(ClientConfigs.durableProducer(clientConfig), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void checkSlots(AggregateResult r) {
        if (r.slots() != slots) {
            throw new IllegalArgumentException("this exchange carries " + slots + " accumulators per group, the result has " + r.slots());
        }
    }

    private static byte[] key(long k) {
        return ByteBuffer.allocate(Long.BYTES).putLong(k).array();
    }

    private byte[] value(AggregateResult r, int row) {
        ByteBuffer b = ByteBuffer.allocate(slots * Long.BYTES);
        for (int s = 0; s < slots; s++) {
            b.putLong(r.value(row, s));
        }
        return b.array();
    }

    private long decodeKey(ConsumerRecord<byte[], byte[]> r) {
        if (r.key() == null || r.key().length != Long.BYTES) {
            throw malformed(r, "key of " + Long.BYTES + " bytes", r.key() == null ? -1 : r.key().length);
        }
        return ByteBuffer.wrap(r.key()).getLong();
    }

    private long[] decodeValue(ConsumerRecord<byte[], byte[]> r, long[] into) {
        if (r.value() == null || r.value().length != slots * Long.BYTES) {
            throw malformed(r, "value of " + slots * Long.BYTES + " bytes", r.value() == null ? -1 : r.value().length);
        }
        ByteBuffer b = ByteBuffer.wrap(r.value());
        for (int s = 0; s < slots; s++) {
            into[s] = b.getLong();
        }
        return into;
    }

    private IllegalStateException malformed(ConsumerRecord<byte[], byte[]> r, String expected, int actual) {
        return new IllegalStateException("exchange record " + r.topic() + "-" + r.partition() + "@" + r.offset() + " needs a "
                + expected + ", had " + (actual < 0 ? "none" : actual + " bytes"));
    }
}
