package dev.baton.topics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The access each Baton role needs (DESIGN §10), as Kafka ACL bindings, and nothing more.
 *
 * <p>With an authorizer that denies what no ACL allows, these bindings make the fences physical:
 * only the streams app writes tasks, results and history, so a worker cannot forge an outcome or a
 * task; a worker reads only its own queues' tasks; a dispatcher writes dispatch commands and reads
 * results, nothing else. Every role reads and registers schemas in {@code _baton_schemas}, because
 * each one encodes what it sends.
 */
public final class RoleAcls {

    /** The roles {@code baton acl apply} knows. */
    public enum Role {
        DISPATCHER, WORKER, STREAMS_APP, ENGINE, OPERATOR;

        /** Parses {@code streams-app} as well as {@code STREAMS_APP}. */
        public static Role parse(String name) {
            try {
                return valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("role must be one of dispatcher, worker, streams-app, engine, operator; was '" + name + "'");
            }
        }
    }

    private final String principal;
    private final List<AclBinding> bindings = new ArrayList<>();

    private RoleAcls(String principal) {
        if (principal == null || !principal.matches("[A-Za-z]+:.+")) {
            throw new IllegalArgumentException("principal must look like User:<name>, was '" + principal + "'");
        }
        if (principal.endsWith(":*")) {
            // Kafka's wildcard principal: every client, ANONYMOUS included; a role given to it undoes DESIGN §10 (adv23c)
            throw new IllegalArgumentException("principal must name one principal, was '" + principal
                    + "', Kafka's wildcard for every principal (ANONYMOUS included)");
        }
        this.principal = principal;
    }

    /**
     * The bindings of {@code role} for {@code principal}; {@code queues} for workers, {@code applicationId} for the streams app,
     * {@code clientIds} for dispatchers.
     */
    public static List<AclBinding> of(Role role, String principal, Collection<String> queues, String applicationId,
                                      Collection<String> clientIds) {
        return switch (role) {
            case DISPATCHER -> dispatcher(principal, clientIds);
            case WORKER -> worker(principal, queues);
            case STREAMS_APP -> streamsApp(principal, applicationId);
            case ENGINE -> engine(principal);
            case OPERATOR -> operator(principal);
        };
    }

    /**
     * Writes dispatch commands; reads results under the groups of the client ids it names, {@code baton-dispatcher-<id>}
     * each, and no other: READ on every {@code baton-dispatcher-*} group let one dispatcher commit another client's
     * results position, so that client, restarted, resumed past its own outcomes (adv23c).
     */
    public static List<AclBinding> dispatcher(String principal, Collection<String> clientIds) {
        if (clientIds == null || clientIds.isEmpty()) {
            throw new IllegalArgumentException("a dispatcher's ACLs need at least one --client-id (its baton.client.id): "
                    + "its results position is kept under group " + ClientIds.DISPATCHER_GROUP_PREFIX + "<client id>, "
                    + "and no dispatcher may move another's");
        }
        RoleAcls acls = new RoleAcls(principal)
                .topic(BatonTopics.DISPATCH, AclOperation.WRITE)
                .topic(BatonTopics.RESULTS, AclOperation.READ);
        for (String clientId : clientIds) {
            if (clientId == null || clientId.isEmpty() || clientId.length() > 256) {
                throw new IllegalArgumentException("a client id must have 1 to 256 characters, was '" + clientId + "'");
            }
            acls.literal(ResourceType.GROUP, ClientIds.dispatcherGroup(clientId), AclOperation.READ);
        }
        return acls.schemas().bindings;
    }

    /**
     * Reads the tasks of {@code queues} only (and their node-pinned topics), in those queues'
     * groups and lease transactions; writes worker events, its registration and dead letters.
     */
    public static List<AclBinding> worker(String principal, Collection<String> queues) {
        if (queues == null || queues.isEmpty()) {
            throw new IllegalArgumentException("a worker's ACLs need at least one queue");
        }
        RoleAcls acls = new RoleAcls(principal);
        for (String queue : queues) {
            acls.topic(BatonTopics.tasks(queue), AclOperation.READ)
                    .prefixed(ResourceType.TOPIC, BatonTopics.tasks(queue) + ".", AclOperation.READ)
                    .literal(ResourceType.GROUP, ClientIds.workerGroup(queue), AclOperation.READ)
                    .prefixed(ResourceType.TRANSACTIONAL_ID, ClientIds.workerTransactionalPrefix(queue), AclOperation.WRITE)
                    .prefixed(ResourceType.TRANSACTIONAL_ID, ClientIds.workerTransactionalPrefix(queue), AclOperation.DESCRIBE);
        }
        return acls.topic(BatonTopics.WORKER_EVENTS, AclOperation.WRITE)
                .topic(BatonTopics.WORKERS, AclOperation.WRITE)
                .topic(BatonTopics.WORKER_CONTROL, AclOperation.READ)
                .topic(BatonTopics.DLQ, AclOperation.WRITE)
                .schemas()
                .bindings;
    }

    /**
     * Reads dispatch commands, worker events and registrations; the only writer of tasks, results,
     * history and control messages; writes clock ticks into worker events (so a heartbeat deadline
     * waits until the reports written before it are read); owns its internal topics, group and
     * transactions; describes the workers' groups for {@code baton status} lag.
     */
    public static List<AclBinding> streamsApp(String principal, String applicationId) {
        if (applicationId == null || applicationId.isBlank()) {
            throw new IllegalArgumentException("the streams app's ACLs need its application.id");
        }
        return new RoleAcls(principal)
                .topic(BatonTopics.DISPATCH, AclOperation.READ)
                .topic(BatonTopics.WORKER_EVENTS, AclOperation.READ)
                .topic(BatonTopics.WORKER_EVENTS, AclOperation.WRITE)
                .topic(BatonTopics.WORKERS, AclOperation.READ)
                .prefixed(ResourceType.TOPIC, BatonTopics.TASKS_PREFIX, AclOperation.WRITE)
                .topic(BatonTopics.RESULTS, AclOperation.WRITE)
                .topic(BatonTopics.HISTORY, AclOperation.WRITE)
                .topic(BatonTopics.DLQ, AclOperation.WRITE)
                .topic(BatonTopics.WORKER_CONTROL, AclOperation.WRITE)
                .prefixed(ResourceType.TOPIC, applicationId + "-", AclOperation.ALL)
                .literal(ResourceType.GROUP, applicationId, AclOperation.READ)
                .prefixed(ResourceType.TRANSACTIONAL_ID, applicationId + "-", AclOperation.WRITE)
                .prefixed(ResourceType.TRANSACTIONAL_ID, applicationId + "-", AclOperation.DESCRIBE)
                .prefixed(ResourceType.GROUP, ClientIds.WORKER_GROUP_PREFIX, AclOperation.DESCRIBE)
                .schemas()
                .bindings;
    }

    /** Scans history; owns the per-job exchange topics and groups. */
    public static List<AclBinding> engine(String principal) {
        return new RoleAcls(principal)
                .topic(BatonTopics.HISTORY, AclOperation.READ)
                .prefixed(ResourceType.TOPIC, BatonTopics.EXCHANGE_PREFIX, AclOperation.ALL)
                .prefixed(ResourceType.GROUP, ClientIds.ENGINE_GROUP_PREFIX, AclOperation.READ)
                .schemas()
                .bindings;
    }

    /** Creates topics, applies ACLs, reads everything Baton owns for status, replay and history. */
    public static List<AclBinding> operator(String principal) {
        return new RoleAcls(principal)
                .literal(ResourceType.CLUSTER, "kafka-cluster", AclOperation.ALL)
                .prefixed(ResourceType.TOPIC, "baton.", AclOperation.ALL)
                .topic(BatonTopics.SCHEMAS, AclOperation.ALL)
                .prefixed(ResourceType.GROUP, "baton-", AclOperation.ALL)
                .bindings;
    }

    /** Every role reads and registers schemas: the {@code kafka://} registry lives in this topic. */
    private RoleAcls schemas() {
        return topic(BatonTopics.SCHEMAS, AclOperation.READ).topic(BatonTopics.SCHEMAS, AclOperation.WRITE);
    }

    /** {@code operation} on one topic, plus DESCRIBE, which every client needs for metadata. */
    private RoleAcls topic(String name, AclOperation operation) {
        literal(ResourceType.TOPIC, name, operation);
        return literal(ResourceType.TOPIC, name, AclOperation.DESCRIBE);
    }

    private RoleAcls literal(ResourceType type, String name, AclOperation operation) {
        return add(new ResourcePattern(type, name, PatternType.LITERAL), operation);
    }

    private RoleAcls prefixed(ResourceType type, String prefix, AclOperation operation) {
        if (type == ResourceType.TOPIC && operation != AclOperation.DESCRIBE && operation != AclOperation.ALL) {
            add(new ResourcePattern(type, prefix, PatternType.PREFIXED), AclOperation.DESCRIBE);
        }
        return add(new ResourcePattern(type, prefix, PatternType.PREFIXED), operation);
    }

    private RoleAcls add(ResourcePattern pattern, AclOperation operation) {
        AclBinding binding = new AclBinding(pattern, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
        if (!bindings.contains(binding)) {
            bindings.add(binding);
        }
        return this;
    }
}
