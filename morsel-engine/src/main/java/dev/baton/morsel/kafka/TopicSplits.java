package dev.baton.morsel.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Splits a topic, as it is now, into offset ranges of at most {@code maxOffsets} each: the pages of
 * a {@link TopicPageSource} and the splits an engine job dispatches. The end of each partition is
 * its end offset when the split is taken; records appended later belong to a later scan.
 */
public final class TopicSplits {

    private TopicSplits() {
    }

    public static List<OffsetRange> of(Consumer<?, ?> consumer, String topic, long maxOffsets) {
        if (maxOffsets < 1) {
            throw new IllegalArgumentException("maxOffsets must be >= 1, was " + maxOffsets);
        }
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic " + topic + " does not exist or has no partitions");
        }
        List<TopicPartition> partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition()))
                .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, Duration.ofSeconds(30));
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        List<OffsetRange> ranges = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            long from = begin.get(tp);
            long to = end.get(tp);
            if (from < to) { // a read_committed end may lie before a log start that deleteRecords moved past it
                ranges.addAll(new OffsetRange(topic, tp.partition(), from, to).split(maxOffsets));
            }
        }
        return ranges;
    }
}
