package dev.baton.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.Node;

/**
 * Bytes a pipeline's topics hold on the brokers (batch headers included), so that two pipelines writing the same number
 * of records can be compared by what the broker appended and served: the kafka shape's records carry the payload and
 * little else, Baton's carry Avro events with ids, tokens and times.
 */
final class LogBytes {

    private LogBytes() {
    }

    /** Bytes on the brokers' log dirs per topic, of the topics {@code counted} takes (no internal topic). */
    static Map<String, Long> byTopic(String bootstrap, Predicate<String> counted) throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            var brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
            Map<String, Long> bytes = new TreeMap<>();
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
                for (LogDirDescription dir : dirs.values()) {
                    dir.replicaInfos().forEach((tp, replica) -> {
                        if (!tp.topic().startsWith("__") && counted.test(tp.topic())) {
                            bytes.merge(tp.topic(), replica.size(), Long::sum);
                        }
                    });
                }
            }
            return bytes;
        }
    }

    /** "412 per activity: baton.tasks.bench 160, ...": bytes written per activity between the two, largest first. */
    static String perActivity(Map<String, Long> before, Map<String, Long> after, long activities) {
        Map<String, Long> per = new TreeMap<>();
        after.forEach((topic, size) -> {
            long bytes = Math.round((size - before.getOrDefault(topic, 0L)) / (double) Math.max(1, activities));
            if (bytes > 0) {
                per.put(topic, bytes);
            }
        });
        long total = per.values().stream().mapToLong(Long::longValue).sum();
        return total + " per activity: " + per.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }
}
