package dev.baton.testkit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import dev.baton.streams.recovery.PartitionReadability;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Where committed readers are held back, for a run whose work stopped moving. Per partition: the
 * last stable offset (what {@code read_committed} readers can reach) against the end, with the open
 * transactions holding it; per consumer group: its committed offsets against both. A task that no
 * worker leases is either behind an open transaction or behind its group's committed offset, and
 * these lines say which.
 */
public final class LogVisibility {

    private LogVisibility() {
    }

    /** One line per partition that is not fully readable or not fully consumed; empty when all is. */
    public static List<String> report(Admin admin, Collection<String> topics, Collection<String> groups)
            throws ExecutionException, InterruptedException, TimeoutException {
        List<TopicPartition> partitions = PartitionReadability.partitionsOf(admin, topics);
        Map<TopicPartition, Long> stable = PartitionReadability.latestOffsets(admin, partitions, IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> end = PartitionReadability.latestOffsets(admin, partitions, IsolationLevel.READ_UNCOMMITTED);
        List<String> lines = new ArrayList<>();
        List<TopicPartition> heldBack = partitions.stream().filter(tp -> stable.get(tp) < end.get(tp)).toList();
        Map<TopicPartition, List<ProducerState>> producers = PartitionReadability.openTransactions(admin, heldBack);
        for (TopicPartition tp : heldBack) {
            String open = producers.getOrDefault(tp, List.of()).stream()
                    .map(p -> "producer " + p.producerId() + " epoch " + p.producerEpoch() + " since offset "
                            + p.currentTransactionStartOffset().getAsLong() + ", last write " + Instant.ofEpochMilli(p.lastTimestamp()))
                    .collect(Collectors.joining("; "));
            lines.add(tp + ": offsets " + stable.get(tp) + ".." + end.get(tp) + " not readable by read_committed readers; open transactions: "
                    + (open.isEmpty() ? "none" : open));
        }
        for (String group : groups) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata at = committed.get(tp);
                if (at != null && at.offset() < stable.get(tp)) {
                    lines.add("group " + group + " at " + tp + ": committed " + at.offset() + ", readable to " + stable.get(tp) + ", end "
                            + end.get(tp));
                } else if (at != null && at.offset() > stable.get(tp)) {
                    lines.add("group " + group + " at " + tp + ": committed " + at.offset() + " is past the readable end " + stable.get(tp));
                }
            }
        }
        return lines;
    }
}
