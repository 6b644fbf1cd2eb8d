package dev.baton.topics;

/**
 * Cluster-wide topic shape: partitions of every partitioned topic, replication factor, and history
 * retention ({@code -1} keeps history forever, the default: it is the audit and recovery log).
 */
public record TopicLayout(int partitions, short replicationFactor, long historyRetentionMs) {

    public TopicLayout {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor must be >= 1, was " + replicationFactor);
        }
    }

    public static TopicLayout defaults() {
        return new TopicLayout(BatonTopics.DEFAULT_PARTITIONS, (short) 1, -1);
    }

    public TopicLayout withPartitions(int n) {
        return new TopicLayout(n, replicationFactor, historyRetentionMs);
    }
}
