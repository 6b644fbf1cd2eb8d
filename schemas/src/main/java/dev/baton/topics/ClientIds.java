package dev.baton.topics;

/**
 * The consumer groups and transactional ids Baton's clients use. They live next to the topic names
 * because access control is written against both: {@link RoleAcls} grants exactly these.
 *
 * <p>Queue names cannot contain '.', so a '.' after the queue keeps one queue's prefix from
 * matching another's ({@code baton-worker.a.} never matches queue {@code a-b}).
 */
public final class ClientIds {

    public static final String WORKER_GROUP_PREFIX = "baton-worker-";
    public static final String WORKER_TRANSACTIONAL_PREFIX = "baton-worker.";
    public static final String DISPATCHER_GROUP_PREFIX = "baton-dispatcher-";
    public static final String ENGINE_GROUP_PREFIX = "baton-engine-";

    private ClientIds() {
    }

    /** The consumer group every worker of a queue joins, {@code baton-worker-<queue>}. */
    public static String workerGroup(String queue) {
        return WORKER_GROUP_PREFIX + BatonTopics.requireQueueName(queue);
    }

    /** The lease transaction's id of one worker on one queue, {@code baton-worker.<queue>.<worker>}. */
    public static String workerTransactionalId(String queue, String workerId) {
        return workerTransactionalPrefix(queue) + workerId;
    }

    /** What every transactional id of a queue's workers starts with. */
    public static String workerTransactionalPrefix(String queue) {
        return WORKER_TRANSACTIONAL_PREFIX + BatonTopics.requireQueueName(queue) + ".";
    }

    /** The group a dispatch client commits its results position under. */
    public static String dispatcherGroup(String clientId) {
        return DISPATCHER_GROUP_PREFIX + clientId;
    }

    /** The group of the engine nodes of one job. */
    public static String engineGroup(String job) {
        return ENGINE_GROUP_PREFIX + job;
    }
}
