package dev.baton.morsel.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BinaryOperator;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineFailedException;
import dev.baton.morsel.scheduler.PipelineKind;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;

/**
 * A parallel fold over every committed record of a topic: the topic is cut into offset-range
 * morsels sized to its records ({@link TopicMorsels}), run by a {@link MorselScheduler}; every
 * worker folds into its own partial, and the partials are merged at the barrier. The fold must not
 * depend on the order of ranges (records of one range are visited in offset order).
 *
 * <p>An instance keeps its consumers ({@link ScanConsumers}) and its scheduler for every fold it
 * runs: open one per command or per engine node, not per scan. One fold at a time per instance.
 */
public final class TopicFold implements AutoCloseable {

    /** The merged result and how the scan went. */
    public record Result<P>(P value, long records, long bytes, int morsels, long offsetsPerMorsel, long nanos) {
        public double recordsPerSecond() {
            return records / Math.max(1e-9, nanos / 1e9);
        }
    }

    private final ScanConsumers consumers;
    private final MorselScheduler scheduler;
    private final MorselMetrics metrics;
    private final int threads;
    private final ScanTimings timings;

    public TopicFold(Map<String, Object> clientConfig, int threads, MorselMetrics metrics) {
        this(clientConfig, threads, metrics, ScanTimings.off());
    }

    /** As {@link TopicFold#TopicFold(Map, int, MorselMetrics)}, recording each scan's phases in {@code timings}. */
    public TopicFold(Map<String, Object> clientConfig, int threads, MorselMetrics metrics, ScanTimings timings) {
        this.threads = threads;
        this.metrics = metrics;
        this.timings = timings;
        long start = System.nanoTime();
        this.consumers = new ScanConsumers(clientConfig, threads);
        timings.done("scan consumers made", start);
        // One node per worker: a morsel's preferred node is the worker TopicMorsels dealt it to.
        start = System.nanoTime();
        this.scheduler = new MorselScheduler(threads, threads, metrics);
        timings.done("scheduler made", start);
    }

    public int threads() {
        return threads;
    }

    /**
     * Forgets what this instance's consumers fetched and where they stand, so the next fold reads every record it hands out
     * from the cluster as it is then. A fold kept from one job to the next (an engine node's) calls it before each job: a
     * fold that starts where the last one stopped goes on with the records fetched then, which belong to a topic that is
     * gone if the topic was deleted and created again under its name in between. Costs the next fold a fetch per partition.
     */
    public void forgetFetched() {
        consumers.forget();
    }

    /** Folds the whole topic as it is now (end offsets of the moment). */
    public <P> Result<P> fold(String topic, Supplier<P> partial, BiConsumer<P, ConsumerRecord<byte[], byte[]>> step, BinaryOperator<P> merge) {
        return fold(partitions(topic), partial, step, merge, () -> false, () -> { });
    }

    /** Told after each morsel a worker folded, on that worker's thread. */
    @FunctionalInterface
    public interface MorselListener {
        void morselDone() throws InterruptedException;
    }

    /**
     * Folds these ranges, each cut into morsels sized to the records of the first fetch.
     *
     * @param cancelled checked before each morsel and after each poll; once true the fold stops
     *     within the morsel each worker is reading and throws {@link CancellationException}
     * @param afterMorsel told after each morsel, on the worker's thread
     */
    public <P> Result<P> fold(List<OffsetRange> ranges, Supplier<P> partial, BiConsumer<P, ConsumerRecord<byte[], byte[]>> step,
                              BinaryOperator<P> merge, BooleanSupplier cancelled, MorselListener afterMorsel) {
        long start = System.nanoTime();
        List<P> partials = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            partials.add(partial.get());
        }
        long perMorsel = offsetsPerMorsel(ranges);
        TopicMorsels.Plan plan = TopicMorsels.plan(ranges, perMorsel, threads);
        AtomicLong records = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        if (!plan.morsels().isEmpty()) {
            TopicPageSource source = TopicPageSource.raw(consumers, plan.ranges());
            for (int w = 0; w < threads; w++) {
                int worker = w;
                source.prepare(w, plan.morsels().stream().filter(m -> m.preferredNumaNode() == worker).map(m -> m.startPage()).toList());
            }
            String topic = plan.ranges().get(0).topic();
            long scanStart = System.nanoTime();
            try {
                scheduler.run(new Pipeline("fold " + topic, plan.morsels(), (worker, morsel, ctx) -> {
                    BooleanSupplier stop = () -> cancelled.getAsBoolean() || ctx.isCancelled();
                    if (stop.getAsBoolean()) {
                        throw new CancellationException("fold of " + topic + " cancelled before morsel " + morsel.id());
                    }
                    P mine = partials.get(worker);
                    long[] size = new long[1];
                    records.addAndGet(source.scan(worker, morsel.startPage(), r -> {
                        size[0] += Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
                        step.accept(mine, r);
                    }, stop));
                    bytes.addAndGet(size[0]);
                    afterMorsel.morselDone();
                }));
            } catch (PipelineFailedException e) {
                if (e.getCause() instanceof CancellationException c) {
                    throw c;
                }
                throw e;
            } finally {
                timings.done(topic + " scan", scanStart);
            }
        }
        P merged = partials.get(0);
        for (int w = 1; w < threads; w++) {
            merged = merge.apply(merged, partials.get(w));
        }
        long nanos = System.nanoTime() - start;
        metrics.rowsScanned(records.get());
        metrics.queryDone(records.get(), nanos);
        return new Result<>(merged, records.get(), bytes.get(), plan.morsels().size(), perMorsel, nanos);
    }

    /**
     * A query over a topic read as columns: {@link #assemble} adds a scan's stages and its sink and
     * returns how to read the answer once the scan's pipeline has passed its barrier.
     */
    @FunctionalInterface
    public interface Query<R> {
        Function<MorselScheduler, R> assemble(ScanPipeline scan);
    }

    /** A query over ranges of one topic read as {@code columns} by each worker's decoder, for {@link #queryTogether}. */
    public record TopicQuery<R>(List<OffsetRange> ranges, List<String> columns, TopicPageSource.RowDecoders decoders, Query<R> query) {
        public TopicQuery {
            ranges = List.copyOf(ranges);
            columns = List.copyOf(columns);
        }

        /** One thread-safe decoder for every worker. */
        public TopicQuery(List<OffsetRange> ranges, List<String> columns, TopicPageSource.RowDecoder decoder, Query<R> query) {
            this(ranges, columns, TopicPageSource.RowDecoders.shared(decoder), query);
        }
    }

    /**
     * Runs {@code query} over these ranges read as {@code columns} by {@code decoder}: one
     * {@link PipelineKind#SCAN} pipeline of morsels sized like a fold's, on this instance's consumers
     * and scheduler; the answer is read on the calling thread after the barrier.
     *
     * @param cancelled checked before each morsel; once true the scan stops and throws {@link CancellationException}
     */
    public <R> Result<R> query(List<OffsetRange> ranges, List<String> columns, TopicPageSource.RowDecoder decoder, Query<R> query,
                               BooleanSupplier cancelled) {
        return query(new TopicQuery<>(ranges, columns, decoder, query), cancelled);
    }

    /** As {@link #query(List, List, TopicPageSource.RowDecoder, Query, BooleanSupplier)}. */
    public <R> Result<R> query(TopicQuery<R> query, BooleanSupplier cancelled) {
        return queryTogether(List.of(query), cancelled).get(0);
    }

    /**
     * Runs several queries as one scheduled job: their morsels form one {@link PipelineKind#SCAN}
     * pipeline with one barrier, each worker's consumer is positioned once for the partitions of
     * every topic it was dealt, and all of them fetch together, so the topics are read at once
     * instead of one after the other, with one thread per worker. Each query's morsels are sized to
     * its own records and dealt like a fold's; a worker scans its share of the first query first,
     * and stealing takes from the end of a peer's share. Answers are read on the calling thread
     * after the barrier, in order. Each result counts its own records and bytes; its time is the job's.
     *
     * @param cancelled checked before each morsel; once true the scan stops and throws {@link CancellationException}
     */
    public <R> List<Result<R>> queryTogether(List<TopicQuery<R>> queries, BooleanSupplier cancelled) {
        long start = System.nanoTime();
        QueryJob<R> job = new QueryJob<>(queries, consumers, threads, this::offsetsPerMorsel);
        for (int w = 0; w < threads; w++) {
            consumers.cursor(w).prepare(job.rangesOf(w));
        }
        String name = job.topics();
        long scanStart = System.nanoTime();
        try {
            scheduler.run(Pipeline.of("query " + name, PipelineKind.SCAN, job.morsels(), 0, (worker, morsel, ctx) -> {
                if (cancelled.getAsBoolean()) {
                    throw new CancellationException("query of " + name + " cancelled before morsel " + morsel.id());
                }
                job.run(worker, morsel, ctx);
            }));
        } catch (PipelineFailedException e) {
            if (e.getCause() instanceof CancellationException c) {
                throw c;
            }
            throw e;
        } finally {
            timings.done(name + " scan", scanStart);
        }
        List<Result<R>> results = new ArrayList<>();
        for (int q = 0; q < queries.size(); q++) {
            long answerStart = System.nanoTime();
            R value = job.answer(q, scheduler);
            timings.done(job.topicOf(q) + " answer", answerStart);
            TopicPageSource source = job.source(q);
            results.add(new Result<>(value, source.recordsRead(), source.bytesRead(), job.plan(q).morsels().size(),
                    job.plan(q).offsetsPerMorsel(), System.nanoTime() - start));
            metrics.rowsScanned(source.recordsRead());
        }
        long records = results.stream().mapToLong(Result::records).sum();
        metrics.queryDone(records, System.nanoTime() - start);
        return results;
    }

    /** One range per partition of {@code topic}, from its beginning to its end offset of the moment. */
    public List<OffsetRange> partitions(String topic) {
        long start = System.nanoTime();
        try {
            return TopicSplits.of(consumers.consumer(0), topic, Long.MAX_VALUE);
        } finally {
            timings.done(topic + " partitions and offsets", start);
        }
    }

    /** Whether some partition of {@code topic} no longer starts at offset 0 (retention or deleteRecords removed records). */
    public boolean trimmed(String topic) {
        var consumer = consumers.consumer(0);
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            return false;
        }
        List<org.apache.kafka.common.TopicPartition> partitions = infos.stream()
                .map(i -> new org.apache.kafka.common.TopicPartition(topic, i.partition())).toList();
        return consumer.beginningOffsets(partitions, Duration.ofSeconds(30)).values().stream().anyMatch(o -> o > 0);
    }

    /** Sized on the records of the first fetch of the largest range. */
    private long offsetsPerMorsel(List<OffsetRange> ranges) {
        OffsetRange largest = null;
        for (OffsetRange r : ranges) {
            largest = largest == null || r.offsets() > largest.offsets() ? r : largest;
        }
        if (largest == null || largest.offsets() == 0) {
            return TopicMorsels.MIN_OFFSETS;
        }
        long start = System.nanoTime();
        TopicPageSource probe = TopicPageSource.raw(consumers, List.of(largest));
        long perMorsel = TopicMorsels.offsetsPerMorsel(Morsels.l2Bytes(), TopicMorsels.recordBytes(probe.peek(0, 0)));
        timings.done(largest.topic() + " first fetch (morsel size)", start);
        return perMorsel;
    }

    /** Partition count of {@code topic}, or throws if it does not exist. */
    public int partitionCount(String topic) {
        List<PartitionInfo> infos = consumers.consumer(0).partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic " + topic + " does not exist or has no partitions");
        }
        return infos.size();
    }

    @Override
    public void close() {
        scheduler.close();
        consumers.close();
    }
}
