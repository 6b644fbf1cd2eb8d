package dev.baton.topics;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka client configuration of each kind of client Baton opens, built in one place from a
 * process's settings (bootstrap servers, security, whatever the user passed), as Kafka's
 * {@code CommonClientConfigs} does for its own clients.
 *
 * <p>Every method copies the settings, keeps only the keys its client type defines (so one map may
 * carry producer, consumer and admin settings without warnings), and then sets what the role
 * requires over anything the user passed. Defaults a caller may tune are its own business: it sets
 * them on the returned map with {@code putIfAbsent}. The input is never modified; each call returns
 * a new mutable map.
 */
public final class ClientConfigs {

    private ClientConfigs() {
    }

    /** The settings of a process that names only its bootstrap servers. */
    public static Map<String, Object> bootstrap(String bootstrapServers) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return c;
    }

    /** {@link #bootstrap(String)} and then {@code extra} over it: a process's settings written inline. */
    public static Map<String, Object> settings(String bootstrapServers, Map<String, ?> extra) {
        Map<String, Object> c = bootstrap(bootstrapServers);
        c.putAll(extra);
        return c;
    }

    /** A producer whose writes survive a broker loss and are not duplicated by its own retries: idempotent, {@code acks=all}. */
    public static Map<String, Object> durableProducer(Map<String, ?> settings) {
        Map<String, Object> c = only(settings, ProducerConfig.configNames());
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        return c;
    }

    /** {@link #durableProducer(Map)} on {@code bootstrapServers} with {@code extra} settings. */
    public static Map<String, Object> durableProducer(String bootstrapServers, Map<String, ?> extra) {
        return durableProducer(settings(bootstrapServers, extra));
    }

    /**
     * A {@link #durableProducer(Map)} that writes in transactions under {@code transactionalId}: a
     * second producer with the same id fences this one.
     */
    public static Map<String, Object> transactionalProducer(Map<String, ?> settings, String transactionalId) {
        Map<String, Object> c = durableProducer(settings);
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return c;
    }

    /**
     * A consumer in group {@code groupId} that commits its offsets itself (no auto-commit) and reads
     * committed records only; {@code autoOffsetReset} says where a group without offsets starts
     * ({@code "earliest"} or {@code "latest"}).
     */
    public static Map<String, Object> groupConsumer(Map<String, ?> settings, String groupId, String autoOffsetReset) {
        Map<String, Object> c = only(settings, ConsumerConfig.configNames());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, autoOffsetReset);
        // DESIGN §3: never auto-created. Kafka's consumer default asks the broker to create a topic it subscribes to, so a
        // worker serving an undeclared queue or node created its task topic wherever the broker allows it (h/adv22w).
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }

    /**
     * A consumer that assigns its partitions itself and reads committed records only, in no group
     * and committing nothing: scans, the registry's log, replies read from one partition.
     */
    public static Map<String, Object> assignedReader(Map<String, ?> settings) {
        Map<String, Object> c = only(settings, ConsumerConfig.configNames());
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // as above
        return c;
    }

    /** An admin client. */
    public static Map<String, Object> admin(Map<String, ?> settings) {
        return only(settings, AdminClientConfig.configNames());
    }

    /** An admin client on {@code bootstrapServers} and nothing else. */
    public static Map<String, Object> admin(String bootstrapServers) {
        return admin(bootstrap(bootstrapServers));
    }

    private static Map<String, Object> only(Map<String, ?> settings, Set<String> names) {
        Map<String, Object> c = new HashMap<>(settings);
        c.keySet().retainAll(names);
        return c;
    }
}
