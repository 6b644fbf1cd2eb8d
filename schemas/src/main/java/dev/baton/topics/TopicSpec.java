package dev.baton.topics;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.NewTopic;

/** A topic Baton declares: name, partitions, replication and topic-level configs. */
public record TopicSpec(String name, int partitions, short replicationFactor, Map<String, String> configs) {

    public TopicSpec {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions of " + name + " must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor of " + name + " must be >= 1, was " + replicationFactor);
        }
        configs = Map.copyOf(configs);
    }

    public NewTopic toNewTopic() {
        return new NewTopic(name, Optional.of(partitions), Optional.of(replicationFactor)).configs(configs);
    }
}
