package dev.baton.streams.processor;

import java.util.Optional;

/**
 * Whether an input record sits on the partition its key maps to (murmur2 of the key bytes modulo
 * the partition count, Kafka's default partitioner). One stream task owns every event of a site
 * only if every writer follows that rule; a record written with another partitioner (librdkafka's
 * default, CRC32) lands on a task that does not own its site, where acting on it would make a
 * second row for the site. The caller answers a misplaced dispatch and dead-letters anything else.
 *
 * <p>Thread-safe if its {@link InputPartitions} is.
 */
public final class PartitionCheck {

    private final InputPartitions partitions;

    public PartitionCheck(InputPartitions partitions) {
        this.partitions = partitions;
    }

    /**
     * Why the record of {@code topic} with {@code key}, read from {@code partition}, is misplaced,
     * naming the partitioner to use; empty when it is where it belongs or the count is unknown.
     */
    public Optional<String> misplacement(String topic, byte[] key, int partition) {
        int owner = partitions.partitionOf(key);
        if (owner < 0 || partition == owner) {
            return Optional.empty();
        }
        return Optional.of("wrong partition: written to partition " + partition + " of " + topic + ", but its key maps to partition "
                + owner + " (murmur2 of the key bytes modulo " + partitions.count() + ", Kafka's default partitioner); "
                + "produce with a murmur2 partitioner (librdkafka: partitioner=murmur2_random)");
    }
}
