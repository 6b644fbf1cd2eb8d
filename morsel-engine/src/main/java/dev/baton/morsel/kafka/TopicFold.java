package dev.baton.morsel.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A parallel fold over every committed record of a topic: the topic is split into offset ranges
 * ({@link TopicSplits}), each range is one morsel run by the {@link MorselScheduler}, every worker
 * folds into its own partial, and the partials are merged at the barrier. The fold must not depend
 * on the order of ranges (records of one partition range are visited in offset order).
 */
public final class TopicFold {

    /** The merged result and how the scan went. */
    public record Result<P>(P value, long records, int morsels, long nanos) {
        public double recordsPerSecond() {
            return records / Math.max(1e-9, nanos / 1e9);
        }
    }

    private TopicFold() {
    }

    public static <P> Result<P> fold(Map<String, Object> clientConfig, String topic, int threads, long offsetsPerMorsel,
                                     Supplier<P> partial, BiConsumer<P, ConsumerRecord<byte[], byte[]>> step, BinaryOperator<P> merge) {
        List<OffsetRange> ranges;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            ranges = TopicSplits.of(consumer, topic, offsetsPerMorsel);
        }
        return fold(clientConfig, ranges, threads, partial, step, merge);
    }

    /** As {@link #fold(Map, String, int, long, Supplier, BiConsumer, BinaryOperator)} over given ranges, one morsel each. */
    public static <P> Result<P> fold(Map<String, Object> clientConfig, List<OffsetRange> ranges, int threads,
                                     Supplier<P> partial, BiConsumer<P, ConsumerRecord<byte[], byte[]>> step, BinaryOperator<P> merge) {
        List<P> partials = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            partials.add(partial.get());
        }
        AtomicLong records = new AtomicLong();
        long start = System.nanoTime();
        try (TopicPageSource source = TopicPageSource.raw(clientConfig, ranges, threads);
             MorselScheduler scheduler = new MorselScheduler(threads, 1, MorselMetrics.noop())) {
            if (!ranges.isEmpty()) {
                scheduler.run(new Pipeline("fold " + ranges.get(0).topic(), Morsels.partition(0, ranges.size(), 1, 1), (worker, morsel, ctx) -> {
                    P mine = partials.get(worker);
                    records.addAndGet(source.scan(worker, morsel.startPage(), r -> step.accept(mine, r)));
                }));
            }
        }
        P merged = partials.get(0);
        for (int w = 1; w < threads; w++) {
            merged = merge.apply(merged, partials.get(w));
        }
        return new Result<>(merged, records.get(), ranges.size(), System.nanoTime() - start);
    }
}
