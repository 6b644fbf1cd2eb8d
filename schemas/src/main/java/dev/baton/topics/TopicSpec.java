package dev.baton.topics;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.NewTopic;

/**
 * A topic Baton declares: name, partitions, replication and topic-level configs. A replication
 * factor of {@link TopicLayout#BROKER_DEFAULT_REPLICATION} leaves it to the broker's
 * {@code default.replication.factor}.
 */
public record TopicSpec(String name, int partitions, short replicationFactor, Map<String, String> configs) {

    public TopicSpec {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions of " + name + " must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1 && replicationFactor != TopicLayout.BROKER_DEFAULT_REPLICATION) {
            throw new IllegalArgumentException("replication factor of " + name + " must be >= 1 or -1 (the broker's default), was "
                    + replicationFactor);
        }
        configs = Map.copyOf(configs);
    }

    public NewTopic toNewTopic() {
        Optional<Short> replication = replicationFactor == TopicLayout.BROKER_DEFAULT_REPLICATION ? Optional.empty() : Optional.of(replicationFactor);
        return new NewTopic(name, Optional.of(partitions), replication).configs(configs);
    }
}
