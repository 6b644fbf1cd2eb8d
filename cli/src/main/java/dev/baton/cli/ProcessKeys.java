package dev.baton.cli;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.worker.WorkerConfig;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The keys a process understands: Baton's own (its ConfigDef), the Kafka clients' it passes
 * settings to, and prefixed families ({@code producer.*}, {@code queue.<name>.*}, ...).
 */
enum ProcessKeys {

    STREAMS_APP("streams-app", StreamsAppConfig.CONFIG, true,
            List.of(QueueTimeouts.PREFIX, StreamsConfig.PRODUCER_PREFIX, StreamsConfig.CONSUMER_PREFIX, StreamsConfig.MAIN_CONSUMER_PREFIX,
                    StreamsConfig.RESTORE_CONSUMER_PREFIX, StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.ADMIN_CLIENT_PREFIX,
                    StreamsConfig.TOPIC_PREFIX)),
    WORKER("worker", WorkerConfig.CONFIG, false, List.of()),
    DISPATCHER("dispatcher", DispatchClientConfig.CONFIG, false, List.of()),
    ENGINE_NODE("engine-node", WorkerConfig.CONFIG, false, List.of());

    /** The {@code user:password} of an http(s):// schema registry (ConfluentRestSchemaRegistry). */
    static final String REGISTRY_BASIC_AUTH = "basic.auth.user.info";

    private final String processName;
    private final ConfigDef own;
    private final Set<String> names = new HashSet<>();
    private final List<String> prefixes;

    ProcessKeys(String processName, ConfigDef own, boolean streams, List<String> prefixes) {
        this.processName = processName;
        this.own = own;
        this.prefixes = prefixes;
        names.addAll(own.names());
        names.addAll(ProducerConfig.configNames());
        names.addAll(ConsumerConfig.configNames());
        names.addAll(AdminClientConfig.configNames());
        // read by every process's schema registry client for an http(s):// registry (SchemaRegistry.forUrl), not by Kafka:
        // warned as unknown, an operator following the advice removed the registry's credentials (adv23c)
        names.add(REGISTRY_BASIC_AUTH);
        if (streams) {
            names.addAll(StreamsConfig.configDef().names());
        }
    }

    String processName() {
        return processName;
    }

    Set<String> names() {
        return names;
    }

    boolean knows(String key) {
        return names.contains(key) || prefixes.stream().anyMatch(key::startsWith);
    }

    /** Baton's own definition of {@code key}, or null. */
    ConfigDef.ConfigKey definition(String key) {
        return own.configKeys().get(key);
    }
}
