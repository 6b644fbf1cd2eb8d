package dev.baton.topics;

/**
 * Cluster-wide topic shape: partitions of every partitioned topic, replication factor, and history
 * retention ({@code -1} keeps history forever, the default: it is the audit and recovery log).
 *
 * <p>The replication factor defaults to {@link #BROKER_DEFAULT_REPLICATION} ({@code -1}): each topic
 * gets the cluster's {@code default.replication.factor}, so a three-broker cluster configured for
 * replication factor 3 gets it without Baton being told, and a single broker still works.
 */
public record TopicLayout(int partitions, short replicationFactor, long historyRetentionMs) {

    /** Asks the broker for its {@code default.replication.factor}. */
    public static final short BROKER_DEFAULT_REPLICATION = -1;

    public TopicLayout {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1 && replicationFactor != BROKER_DEFAULT_REPLICATION) {
            throw new IllegalArgumentException("replication factor must be >= 1 or -1 (the broker's default), was " + replicationFactor);
        }
    }

    public static TopicLayout defaults() {
        return new TopicLayout(BatonTopics.DEFAULT_PARTITIONS, BROKER_DEFAULT_REPLICATION, -1);
    }

    public TopicLayout withPartitions(int n) {
        return new TopicLayout(n, replicationFactor, historyRetentionMs);
    }
}
