package dev.baton.streams.recovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * How far partitions can be read, from the Admin API: the end a {@code read_committed} reader can
 * reach (the last stable offset) against the end, and the open transactions in between. Shared by
 * the hanging-transaction finder and the soak's diagnosis of stuck work.
 */
public final class PartitionReadability {

    private static final long TIMEOUT_MS = 10_000;

    private PartitionReadability() {
    }

    public static List<TopicPartition> partitionsOf(Admin admin, Collection<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        List<TopicPartition> partitions = new ArrayList<>();
        admin.describeTopics(topics).allTopicNames().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).forEach((topic, d) ->
                d.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition()))));
        return partitions;
    }

    /** The latest offset of each partition as a reader of {@code isolation} sees it: READ_COMMITTED gives the last stable offset. */
    public static Map<TopicPartition, Long> latestOffsets(Admin admin, List<TopicPartition> partitions, IsolationLevel isolation)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = partitions.stream().collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
        return admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** The producers with a transaction open on each partition. */
    public static Map<TopicPartition, List<ProducerState>> openTransactions(Admin admin, List<TopicPartition> partitions)
            throws ExecutionException, InterruptedException, TimeoutException {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        return admin.describeProducers(partitions).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().activeProducers().stream()
                        .filter(p -> p.currentTransactionStartOffset().isPresent()).toList()));
    }
}
