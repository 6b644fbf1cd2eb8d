package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.baton.morsel.data.ColumnPage;
import dev.baton.morsel.data.PageSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * A topic read as pages: page {@code i} is the offset range {@code ranges.get(i)} of one partition,
 * read by the scanning worker's own consumer ({@link ScanConsumers}), so the morsel scheduler scans
 * a topic's partitions in parallel like a page file. A worker whose next page continues the one it
 * just read streams on without seeking.
 *
 * <p>Two ways in: {@link #scan} hands each raw record of a page to a visitor (for folds over
 * decoded events), and the {@link PageSource} view decodes each record into {@code long} columns
 * with a {@link RowDecoder} (for the column operators), reading the fetched batches in place
 * ({@code FetchReader}: a reused {@link RecordView} per record, no consumer record). Reads are {@code read_committed}: aborted
 * records and transaction markers take offsets but yield no rows, so {@link #rowsIn} is known only
 * after the fetch and {@link #rowCount} is the offset count, an upper bound.
 *
 * <p>Thread use: {@link #scan} callers pass their worker index and use consumer {@code w}; in the
 * column view a scheduler's task names its worker ({@link #bind}) so it reads with the consumer
 * that worker was {@linkplain #prepare prepared} for, and a thread that names none claims a free
 * one for the view's lifetime. Use one way per instance.
 */
public final class TopicPageSource implements PageSource, AutoCloseable {

    /**
     * Decodes one record into {@code columns().size()} values; returns false to skip it. The record and its key
     * and value are views of the fetched batch, valid during the call only: read them in place (their position and
     * limit frame the bytes), copy what must outlive it.
     */
    @FunctionalInterface
    public interface RowDecoder {
        boolean decode(RecordView record, long[] row);

        /** As {@link #decode(RecordView, long[])}, for a caller that holds a consumer's record. */
        default boolean decode(ConsumerRecord<ByteBuffer, ByteBuffer> record, long[] row) {
            return decode(RecordView.of(record), row);
        }

        /**
         * Told before this decoder decodes the records of a page (on the worker's thread): a decoder that keeps what
         * its rows refer to beside them (a page's strings) starts afresh here, once the page before has gone through
         * the pipeline.
         */
        default void pageStarts() {
        }
    }

    /**
     * A decoder per worker, made by the worker on its first page: what a decoder keeps (its decode buffer, its last
     * strings) belongs to the query and one worker, not to whichever thread ran it, so nothing of it stays behind on a
     * thread once the query is done (a thread-local did: the calling thread runs worker 0).
     */
    @FunctionalInterface
    public interface RowDecoders {
        RowDecoder forWorker(int worker);

        /** One decoder shared by every worker: it must be thread-safe. */
        static RowDecoders shared(RowDecoder decoder) {
            return worker -> decoder;
        }
    }

    private final List<OffsetRange> ranges;
    private final List<String> columns;
    private final RowDecoders decoders;
    /** Worker {@code w}'s decoder, made by that worker on its first page. */
    private final RowDecoder[] workerDecoders;
    private final ScanConsumers consumers;
    private final boolean ownsConsumers;
    private final ThreadLocal<DecodedPage> decoded = new ThreadLocal<>();
    /** The column view: each scanning thread claims one consumer for its lifetime. */
    private final ThreadLocal<Integer> claimed = new ThreadLocal<>();
    private final AtomicInteger nextWorker = new AtomicInteger();
    private final AtomicLong recordsRead = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();

    /**
     * The page a thread decoded last. Its columns are reused for the thread's next page (a scan reads
     * a page's columns before it moves on), so decoding allocates only when a page is larger than any before.
     */
    private static final class DecodedPage {
        int page = -1;
        /** Little-endian, as {@link ColumnPage} reads them: the operators get them without a copy. */
        ByteBuffer[] columns;
        /**
         * The rows as decoded, column by column, copied into {@link #columns} in bulk once the page is whole: a store
         * into an array per value, where a {@code ByteBuffer.putLong} per value was a call with an index and a scope
         * check under C1, which the cold commands run (it cannot inline a buffer's accessors).
         */
        long[][] staged;
        int rows;

        DecodedPage(int columnCount) {
            columns = buffers(columnCount, 0);
            staged = new long[columnCount][0];
        }

        static ByteBuffer[] buffers(int columnCount, int rows) {
            ByteBuffer[] b = new ByteBuffer[columnCount];
            for (int c = 0; c < columnCount; c++) {
                b[c] = ByteBuffer.allocate(rows * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            }
            return b;
        }
    }

    /**
     * @param clientConfig Kafka client settings (bootstrap servers, security); no group is used
     * @param workers      how many workers scan at once (one consumer each)
     */
    public TopicPageSource(Map<String, Object> clientConfig, List<OffsetRange> ranges, int workers, List<String> columns, RowDecoder decoder) {
        this(new ScanConsumers(clientConfig, workers), true, ranges, columns, RowDecoders.shared(decoder));
    }

    private TopicPageSource(ScanConsumers consumers, boolean owns, List<OffsetRange> ranges, List<String> columns, RowDecoders decoders) {
        this.ranges = List.copyOf(ranges);
        this.columns = List.copyOf(columns);
        this.decoders = decoders;
        this.workerDecoders = new RowDecoder[consumers.workers()];
        this.consumers = consumers;
        this.ownsConsumers = owns;
    }

    /** A raw view without columns, for {@link #scan}. */
    public static TopicPageSource raw(Map<String, Object> clientConfig, List<OffsetRange> ranges, int workers) {
        return new TopicPageSource(clientConfig, ranges, workers, List.of(), (r, row) -> true);
    }

    /**
     * A column view on consumers the caller owns and reuses across scans; closing the view leaves
     * them open. Each scanning thread claims one of the consumers for the view's lifetime.
     */
    public static TopicPageSource columns(ScanConsumers consumers, List<OffsetRange> ranges, List<String> columns, RowDecoder decoder) {
        return columns(consumers, ranges, columns, RowDecoders.shared(decoder));
    }

    /** As {@link #columns(ScanConsumers, List, List, RowDecoder)}, each worker decoding with a decoder of its own. */
    public static TopicPageSource columns(ScanConsumers consumers, List<OffsetRange> ranges, List<String> columns, RowDecoders decoders) {
        return new TopicPageSource(consumers, false, ranges, columns, decoders);
    }

    /** Records the column view fetched (every committed record of its decoded pages, kept or not). */
    public long recordsRead() {
        return recordsRead.get();
    }

    /** Key and value bytes of those records. */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** A raw view on consumers the caller owns and reuses across scans; closing the view leaves them open. */
    public static TopicPageSource raw(ScanConsumers consumers, List<OffsetRange> ranges) {
        return new TopicPageSource(consumers, false, ranges, List.of(), RowDecoders.shared((r, row) -> true));
    }

    public List<OffsetRange> ranges() {
        return ranges;
    }

    /** Reads page {@code page} with worker {@code worker}'s consumer, handing every committed record to {@code visitor}. */
    public long scan(int worker, int page, Consumer<ConsumerRecord<byte[], byte[]>> visitor) {
        return scan(worker, page, visitor, () -> false);
    }

    /**
     * As {@link #scan(int, int, Consumer)}, checking {@code cancelled} after every poll.
     *
     * @throws java.util.concurrent.CancellationException once {@code cancelled} is true
     */
    public long scan(int worker, int page, Consumer<ConsumerRecord<byte[], byte[]>> visitor, BooleanSupplier cancelled) {
        return scanInPlace(worker, page, r -> visitor.accept(copied(r)), cancelled);
    }

    /** As {@link #scan(int, int, Consumer, BooleanSupplier)}, handing out each record's key and value as views of the fetched batch. */
    long scanInPlace(int worker, int page, Consumer<ConsumerRecord<ByteBuffer, ByteBuffer>> visitor, BooleanSupplier cancelled) {
        return consumers.cursor(worker).scan(ranges.get(page), visitor, cancelled);
    }

    /** The record with its key and value copied out of the fetched batch, for visitors that may keep them. */
    private static ConsumerRecord<byte[], byte[]> copied(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
        return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(), r.serializedKeySize(),
                r.serializedValueSize(), Utils.toNullableArray(r.key()), Utils.toNullableArray(r.value()), r.headers(), r.leaderEpoch());
    }

    /** Positions worker {@code worker}'s consumer for the pages it was dealt, in the order it will scan them. */
    public void prepare(int worker, List<Integer> pages) {
        consumers.cursor(worker).prepare(pages.stream().map(ranges::get).toList());
    }

    /** The records of the first fetch of page {@code page} by worker {@code worker}, kept for its scan (no extra fetch). */
    public List<ConsumerRecord<ByteBuffer, ByteBuffer>> peek(int worker, int page) {
        return consumers.cursor(worker).peek(ranges.get(page));
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
        return decode(page).rows;
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    /** Valid until the calling thread reads another page: its columns are reused. */
    @Override
    public LongBuffer page(int page, int column) {
        DecodedPage d = decode(page);
        return d.columns[column].asLongBuffer().limit(d.rows);
    }

    /** The decoded column itself, not a copy: valid until the calling thread reads another page, as {@link #page} is. */
    @Override
    public ColumnPage column(int page, int column) {
        DecodedPage d = decode(page);
        return ColumnPage.wrapLongs(d.columns[column], d.rows);
    }

    private DecodedPage decode(int page) {
        DecodedPage d = decoded.get();
        if (d == null) {
            d = new DecodedPage(columns.size());
            decoded.set(d);
        }
        if (d.page == page) {
            return d;
        }
        int worker = workerOfCurrentThread();
        // A page holds at most its offset count of rows: decode straight into columns of that size, no row objects.
        int capacity = (int) Math.min((Integer.MAX_VALUE - 8) / Long.BYTES, ranges.get(page).offsets());
        if (d.columns.length > 0 && d.columns[0].capacity() < capacity * Long.BYTES) {
            d.columns = DecodedPage.buffers(columns.size(), capacity);
            d.staged = new long[columns.size()][capacity];
        }
        long[][] cols = d.staged;
        RowDecoder decoder = decoderOf(worker);
        decoder.pageStarts();
        long[] row = new long[columns.size()];
        long[] bytes = new long[1];
        int[] rows = new int[1];
        d.page = -1; // until this page is whole: a failed decode must not pass for it
        long records = consumers.cursor(worker).scanViews(ranges.get(page), r -> {
            bytes[0] += Math.max(0, r.keySize()) + Math.max(0, r.valueSize());
            if (decoder.decode(r, row)) {
                int at = rows[0]++;
                for (int c = 0; c < row.length; c++) {
                    cols[c][at] = row[c];
                }
            }
        }, () -> false);
        recordsRead.addAndGet(records);
        bytesRead.addAndGet(bytes[0]);
        for (int c = 0; c < cols.length; c++) { // from index 0 whatever a reader left the buffer's position at
            d.columns[c].slice(0, rows[0] * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(cols[c], 0, rows[0]);
        }
        d.rows = rows[0];
        d.page = page;
        return d;
    }

    private RowDecoder decoderOf(int worker) {
        RowDecoder d = workerDecoders[worker];
        if (d == null) {
            d = workerDecoders[worker] = decoders.forWorker(worker); // only worker's own tasks read or write its entry
        }
        return d;
    }

    /**
     * Makes the calling thread read with worker {@code worker}'s consumer until it binds another: a
     * scheduler's task calls it first, since the thread that runs a worker's deque may change from
     * run to run while the consumer was prepared for the worker.
     */
    public void bind(int worker) {
        if (worker < 0 || worker >= consumers.workers()) {
            throw new IllegalArgumentException("worker must be in 0.." + (consumers.workers() - 1) + ", was " + worker);
        }
        claimed.set(worker);
    }

    private int workerOfCurrentThread() {
        Integer w = claimed.get();
        if (w == null) {
            w = nextWorker.getAndIncrement();
            if (w >= consumers.workers()) {
                throw new IllegalStateException("more scanning threads than the " + consumers.workers() + " workers this source was built for");
            }
            claimed.set(w);
        }
        return w;
    }

    @Override
    public void close() {
        if (ownsConsumers) {
            consumers.close();
        }
    }
}
