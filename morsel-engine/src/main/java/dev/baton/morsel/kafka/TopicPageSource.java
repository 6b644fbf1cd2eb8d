package dev.baton.morsel.kafka;

import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.baton.morsel.data.PageSource;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A topic read as pages: page {@code i} is the offset range {@code ranges.get(i)} of one partition,
 * fetched with {@code assign} + {@code seek} by a consumer owned by the scanning worker, so the
 * morsel scheduler scans a topic's partitions in parallel like a page file.
 *
 * <p>Two ways in: {@link #scan} hands each raw record of a page to a visitor (for folds over
 * decoded events), and the {@link PageSource} view decodes each record into {@code long} columns
 * with a {@link RowDecoder} (for the column operators). Reads are {@code read_committed}: aborted
 * records and transaction markers take offsets but yield no rows, so {@link #rowsIn} is known only
 * after the fetch and {@link #rowCount} is the offset count, an upper bound.
 *
 * <p>Thread use: {@link #scan} callers pass their worker index and use consumer {@code w}; the
 * column view gives each calling thread its own consumer. Use one way per instance.
 */
public final class TopicPageSource implements PageSource, AutoCloseable {

    /** Decodes one record into {@code columns().size()} values; returns false to skip it. */
    @FunctionalInterface
    public interface RowDecoder {
        boolean decode(ConsumerRecord<byte[], byte[]> record, long[] row);
    }

    private static final Duration POLL = Duration.ofMillis(200);
    private static final long STALL_MILLIS = 30_000;

    private final List<OffsetRange> ranges;
    private final List<String> columns;
    private final RowDecoder decoder;
    private final KafkaConsumer<byte[], byte[]>[] consumers;
    private final ThreadLocal<DecodedPage> decoded = new ThreadLocal<>();
    /** The column view: each scanning thread claims one consumer for its lifetime. */
    private final ThreadLocal<Integer> claimed = new ThreadLocal<>();
    private final AtomicInteger nextWorker = new AtomicInteger();

    private record DecodedPage(int page, long[][] columns, int rows) {
    }

    /**
     * @param clientConfig Kafka client settings (bootstrap servers, security); no group is used
     * @param workers      how many workers scan at once (one consumer each)
     */
    @SuppressWarnings("unchecked")
    public TopicPageSource(Map<String, Object> clientConfig, List<OffsetRange> ranges, int workers, List<String> columns, RowDecoder decoder) {
        this.ranges = List.copyOf(ranges);
        this.columns = List.copyOf(columns);
        this.decoder = decoder;
        this.consumers = new KafkaConsumer[workers];
        Map<String, Object> c = ClientConfigs.assignedReader(clientConfig);
        c.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        c.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16 * 1024 * 1024);
        c.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
        for (int w = 0; w < workers; w++) {
            consumers[w] = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
    }

    /** A raw view without columns, for {@link #scan}. */
    public static TopicPageSource raw(Map<String, Object> clientConfig, List<OffsetRange> ranges, int workers) {
        return new TopicPageSource(clientConfig, ranges, workers, List.of(), (r, row) -> true);
    }

    public List<OffsetRange> ranges() {
        return ranges;
    }

    /** Reads page {@code page} with worker {@code worker}'s consumer, handing every committed record to {@code visitor}. */
    public long scan(int worker, int page, Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
        OffsetRange range = ranges.get(page);
        KafkaConsumer<byte[], byte[]> consumer = consumers[worker];
        TopicPartition tp = new TopicPartition(range.topic(), range.partition());
        consumer.assign(List.of(tp));
        consumer.seek(tp, range.from());
        long seen = 0;
        long lastProgress = System.nanoTime();
        while (consumer.position(tp) < range.to()) {
            boolean progressed = false;
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL).records(tp)) {
                progressed = true;
                if (r.offset() >= range.to()) {
                    break;
                }
                visitor.accept(r);
                seen++;
            }
            if (progressed) {
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > STALL_MILLIS * 1_000_000) {
                throw new IllegalStateException("no progress reading " + range + " for " + STALL_MILLIS + " ms (at offset "
                        + consumer.position(tp) + "); is an open transaction holding the last stable offset?");
            }
        }
        return seen;
    }

    @Override
    public int pageCount() {
        return ranges.size();
    }

    @Override
    public long rowCount() {
        return ranges.stream().mapToLong(OffsetRange::offsets).sum();
    }

    @Override
    public int pageBytes() {
        return 0;
    }

    /** Fetches and decodes the page on the calling worker if it is not the one it decoded last. */
    @Override
    public int rowsIn(int page) {
        return decode(page).rows();
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public LongBuffer page(int page, int column) {
        DecodedPage d = decode(page);
        return LongBuffer.wrap(d.columns()[column], 0, d.rows());
    }

    private DecodedPage decode(int page) {
        DecodedPage d = decoded.get();
        if (d != null && d.page() == page) {
            return d;
        }
        int worker = workerOfCurrentThread();
        List<long[]> rows = new ArrayList<>();
        long[] row = new long[columns.size()];
        scan(worker, page, r -> {
            if (decoder.decode(r, row)) {
                rows.add(row.clone());
            }
        });
        long[][] cols = new long[columns.size()][rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            for (int c = 0; c < cols.length; c++) {
                cols[c][i] = rows.get(i)[c];
            }
        }
        d = new DecodedPage(page, cols, rows.size());
        decoded.set(d);
        return d;
    }

    private int workerOfCurrentThread() {
        Integer w = claimed.get();
        if (w == null) {
            w = nextWorker.getAndIncrement();
            if (w >= consumers.length) {
                throw new IllegalStateException("more scanning threads than the " + consumers.length + " workers this source was built for");
            }
            claimed.set(w);
        }
        return w;
    }

    @Override
    public void close() {
        for (KafkaConsumer<byte[], byte[]> c : consumers) {
            c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }
}
