package dev.baton.streams.status;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Per declared queue: end offsets of its task topic minus its worker group's committed offsets.
 * Like {@code kafka-consumer-groups}, this counts offsets, so a transaction's commit marker shows as
 * one unit of lag per partition until the next task arrives.
 */
final class QueueLag {

    private final Admin admin;

    QueueLag(Admin admin) {
        this.admin = admin;
    }

    /**
     * Lag by queue, read now.
     *
     * @throws IllegalStateException if the cluster does not answer within a few seconds
     */
    Map<String, Long> read() {
        Map<String, Long> lag = new TreeMap<>();
        try {
            for (String topic : admin.listTopics().names().get(5, TimeUnit.SECONDS)) {
                if (topic.startsWith(BatonTopics.TASKS_PREFIX)) {
                    lag.put(topic.substring(BatonTopics.TASKS_PREFIX.length()), lagOf(topic));
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read consumer lag: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading consumer lag", e);
        }
        return lag;
    }

    private long lagOf(String topic) throws ExecutionException, InterruptedException, TimeoutException {
        String queue = topic.substring(BatonTopics.TASKS_PREFIX.length());
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(ClientIds.workerGroup(queue))
                .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
        int partitions = admin.describeTopics(Set.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long total = 0;
        for (var e : admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS).entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            total += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return total;
    }
}
