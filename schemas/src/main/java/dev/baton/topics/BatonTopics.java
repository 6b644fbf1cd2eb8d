package dev.baton.topics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.utils.Utils;

/**
 * Every topic of DESIGN §3, by name and shape. Topics are never auto-created: {@link TopicCreator}
 * creates these, and the broker refuses anything undeclared.
 *
 * <p>{@link #DISPATCH} and {@link #WORKER_EVENTS} must be co-partitioned (same count, same key
 * bytes, default partitioner) so that one Streams task owns every event of a site; the layout gives
 * them one count for that reason.
 */
public final class BatonTopics {

    public static final String DISPATCH = "baton.dispatch";
    public static final String WORKER_EVENTS = "baton.worker-events";
    public static final String TASKS_PREFIX = "baton.tasks.";
    public static final String WORKER_CONTROL = "baton.worker-control";
    public static final String WORKERS = "baton.workers";
    public static final String RESULTS = "baton.results";
    public static final String HISTORY = "baton.history";
    public static final String DLQ = "baton.dlq";
    public static final String EXCHANGE_PREFIX = "baton.exchange.";
    /** Schema registrations for {@code kafka://} registries: one partition, kept forever, never compacted. */
    public static final String SCHEMAS = "_baton_schemas";

    public static final int DEFAULT_PARTITIONS = 12;
    private static final String QUEUE_NAME = "[A-Za-z0-9_-]{1,100}";
    private static final int MAX_QUEUE_NAME = 100;

    private BatonTopics() {
    }

    /** The task topic of a queue, {@code baton.tasks.<queue>}. */
    public static String tasks(String queue) {
        requireQueueName(queue);
        return TASKS_PREFIX + queue;
    }

    /** The task topic of a queue pinned to a node, {@code baton.tasks.<queue>.<node>}. */
    public static String tasks(String queue, String node) {
        requireNodeName(node);
        return tasks(queue) + "." + node;
    }

    /**
     * Queue and node names become topic-name parts, so they may use letters, digits, '_' and '-'
     * only ('.' would make {@code baton.tasks.a.b} ambiguous between a queue and a pinned node).
     */
    public static String requireQueueName(String queue) {
        if (!isValidQueueName(queue)) {
            throw new IllegalArgumentException("queue name must match " + QUEUE_NAME + ", was '" + queue + "'");
        }
        return queue;
    }

    /** Whether {@code queue} matches {@code [A-Za-z0-9_-]{1,100}}; checked per record, so without a regex. */
    public static boolean isValidQueueName(String queue) {
        if (queue == null || queue.isEmpty() || queue.length() > MAX_QUEUE_NAME) {
            return false;
        }
        for (int i = 0; i < queue.length(); i++) {
            char c = queue.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    public static TopicSpec schemasTopic() {
        return new TopicSpec(SCHEMAS, 1, TopicLayout.BROKER_DEFAULT_REPLICATION, Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, "-1",
                TopicConfig.RETENTION_BYTES_CONFIG, "-1"));
    }

    /** Every fixed topic, plus the task topic of each queue. */
    public static List<TopicSpec> all(TopicLayout layout, List<String> queues) {
        return all(layout, queues, Map.of());
    }

    /**
     * Every fixed topic, the task topic of each queue, and the task topic of each node a queue is
     * pinned to ({@code baton.tasks.<queue>.<node>}, shaped like the queue's own). A queue named only
     * in {@code nodesByQueue} is declared too: the streams app answers a pin to a node of an
     * undeclared queue {@code unavailable: unknown queue}, so the node topic alone would be useless.
     * A name given twice is declared once.
     *
     * @throws IllegalArgumentException if a queue or node name is not {@code [A-Za-z0-9_-]{1,100}}
     */
    public static List<TopicSpec> all(TopicLayout layout, Collection<String> queues, Map<String, ? extends Collection<String>> nodesByQueue) {
        short rf = layout.replicationFactor();
        int p = layout.partitions();
        Map<String, String> none = Map.of();
        List<TopicSpec> specs = new ArrayList<>(List.of(
                new TopicSpec(DISPATCH, p, rf, none),
                new TopicSpec(WORKER_EVENTS, p, rf, none),
                new TopicSpec(WORKER_CONTROL, p, rf, none),
                new TopicSpec(WORKERS, p, rf, Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)),
                new TopicSpec(RESULTS, p, rf, none),
                new TopicSpec(HISTORY, p, rf, layout.historyRetentionMs() < 0
                        ? Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1", TopicConfig.RETENTION_BYTES_CONFIG, "-1")
                        : Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(layout.historyRetentionMs()))),
                new TopicSpec(DLQ, p, rf, none),
                new TopicSpec(SCHEMAS, 1, rf, schemasTopic().configs())));
        for (Map.Entry<String, Set<String>> queue : taskTopics(queues, nodesByQueue).entrySet()) {
            specs.add(new TopicSpec(tasks(queue.getKey()), p, rf, none));
            for (String node : queue.getValue()) {
                specs.add(new TopicSpec(tasks(queue.getKey(), node), p, rf, none));
            }
        }
        return specs;
    }

    /** Queues in the order given (then those named only by their nodes), each with its nodes, without repeats. */
    private static Map<String, Set<String>> taskTopics(Collection<String> queues, Map<String, ? extends Collection<String>> nodesByQueue) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        for (String queue : queues) {
            out.computeIfAbsent(requireQueueName(queue), q -> new LinkedHashSet<>());
        }
        for (Map.Entry<String, ? extends Collection<String>> e : nodesByQueue.entrySet()) {
            Set<String> nodes = out.computeIfAbsent(requireQueueName(e.getKey()), q -> new LinkedHashSet<>());
            for (String node : e.getValue()) {
                nodes.add(requireNodeName(node));
            }
        }
        return out;
    }

    /** Node names follow the queue-name rule, for the same reason; the message names the node. */
    public static String requireNodeName(String node) {
        if (!isValidQueueName(node)) {
            throw new IllegalArgumentException("node name must match " + QUEUE_NAME + ", was '" + node + "'");
        }
        return node;
    }

    /**
     * The partition of {@link #RESULTS} that results keyed {@code replyKey} (a client id) land in.
     * A client, or an operator tool, reads only this partition for that client.
     */
    public static int resultsPartition(String replyKey, int partitions) {
        return keyPartition(replyKey, partitions);
    }

    /**
     * The partition Kafka's default partitioner gives a record keyed {@code key} (UTF-8): murmur2 of
     * the key's bytes modulo {@code partitions}. A reader of the records addressed to one id (a
     * client's results, a worker's control records) reads this partition only.
     */
    public static int keyPartition(String key, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
