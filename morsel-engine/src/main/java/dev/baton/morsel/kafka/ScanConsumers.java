package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.util.Map;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * One consumer per scanning worker, created once and reused for every morsel and every scan the
 * owner runs: a consumer costs a connection and a metadata round trip, which dominate small scans.
 * {@link #readerConfig} is the one place scan consumers get their fetch settings (the benchmark's
 * raw consumer uses it too, so both are tuned alike).
 *
 * <p>Keys and values are handed out as {@link ByteBuffer}s over the fetched batch, not copied into arrays:
 * Kafka's {@code byte[]} deserializer copies every key and value, which a scan pays in CPU and in what the
 * collector must clear (docs/decisions.md, "A cold replay, third pass"). Whoever keeps one beyond the visit copies it.
 *
 * <p>The column view's scans ({@link TopicPageSource.RowDecoder}) read through a {@code FetchReader}, which walks the
 * fetched batches in place; folds and peeks read through the consumer.
 *
 * <p>Worker {@code w} uses {@link #cursor(int) cursor(w)} only; the instance is not thread-safe otherwise.
 */
public final class ScanConsumers implements AutoCloseable {

    /**
     * Bytes one fetch brings per partition: a few morsels' worth. Fetched bytes stay live until their
     * records are read, and a worker fetches all its partitions at once, so larger fetches are
     * buffers the collector copies at each young collection (8 MiB cost more GC than they saved in
     * requests; docs/decisions.md, "A cold replay, second pass").
     */
    public static final int PARTITION_FETCH_BYTES = 1024 * 1024;

    /**
     * Records one poll parses and hands out. A poll parses its records whether the morsel wants them
     * or not, and a worker that seeks (a stolen morsel, another partition) drops what it parsed beyond
     * its morsel; polls of about a morsel's records (a few thousand) bound that waste, and a poll
     * costs microseconds.
     */
    static final int MAX_POLL_RECORDS = 2_000;

    /**
     * Set to {@code consumer} to read every scan through a consumer, as before the fetch reader: for comparing the two
     * (docs/decisions.md, "The replay scan reads fetched batches in place").
     */
    public static final String READER_PROPERTY = "baton.scan.reader";

    private final PartitionCursor[] cursors;

    public ScanConsumers(Map<String, Object> clientConfig, int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, was " + workers);
        }
        Map<String, Object> c = readerConfig(clientConfig);
        cursors = new PartitionCursor[workers];
        for (int w = 0; w < workers; w++) {
            FetchReader fetchReader = "consumer".equals(System.getProperty(READER_PROPERTY)) ? null : new FetchReader(c, PartitionCursor.stall());
            cursors[w] = new PartitionCursor(new KafkaConsumer<>(c, new ByteBufferDeserializer(), new ByteBufferDeserializer()), fetchReader);
        }
    }

    /**
     * An assigned, group-less, {@code read_committed} reader with fetches sized for scans: large
     * partition fetches and polls so a core spends its time on records, not on requests. Keys the
     * caller set win.
     */
    public static Map<String, Object> readerConfig(Map<String, Object> clientConfig) {
        Map<String, Object> c = ClientConfigs.assignedReader(clientConfig);
        c.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        c.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, PARTITION_FETCH_BYTES);
        c.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 * PARTITION_FETCH_BYTES);
        c.putIfAbsent(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4 * 1024 * 1024);
        // A scan stops at the end offsets of the moment, so the broker must not hold a fetch waiting for
        // more: the consumer prefetches past a partition's end, and while the broker parks that fetch
        // (500 ms by default) no fetch for the next partition can go to it.
        c.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return c;
    }

    public int workers() {
        return cursors.length;
    }

    PartitionCursor cursor(int worker) {
        return cursors[worker];
    }

    /** Worker {@code w}'s consumer, for callers that read outside morsels (splitting a topic). */
    public KafkaConsumer<ByteBuffer, ByteBuffer> consumer(int worker) {
        return cursors[worker].consumer();
    }

    /** Every worker's cursor drops what it fetched and where it stood ({@link PartitionCursor#forget}). */
    public void forget() {
        for (PartitionCursor c : cursors) {
            c.forget();
        }
    }

    @Override
    public void close() {
        for (PartitionCursor c : cursors) {
            c.close();
        }
    }
}
