package dev.baton.topics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.TopicConfig;

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
        requireQueueName(node);
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
        return new TopicSpec(SCHEMAS, 1, (short) 1, Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, "-1",
                TopicConfig.RETENTION_BYTES_CONFIG, "-1"));
    }

    /** Every fixed topic, plus the task topic of each queue. */
    public static List<TopicSpec> all(TopicLayout layout, List<String> queues) {
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
        for (String queue : queues) {
            specs.add(new TopicSpec(tasks(queue), p, rf, none));
        }
        return specs;
    }
}
