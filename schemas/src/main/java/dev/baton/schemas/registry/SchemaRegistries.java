package dev.baton.schemas.registry;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.CommonClientConfigs;

/** Chooses a registry implementation by URL scheme. */
final class SchemaRegistries {

    /** {@code mem://name} registries live as long as the JVM so separate clients share them. */
    private static final Map<String, InMemorySchemaRegistry> MEMORY = new ConcurrentHashMap<>();

    private SchemaRegistries() {
    }

    static SchemaRegistry forUrl(String url, Map<String, ?> clientConfig) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("schema.registry.url must be set, was '" + url + "'");
        }
        String trimmed = url.trim();
        int sep = trimmed.indexOf("://");
        String scheme = sep < 0 ? "" : trimmed.substring(0, sep).toLowerCase();
        String rest = sep < 0 ? "" : trimmed.substring(sep + 3);
        switch (scheme) {
            case "mem":
                String name = rest;
                return new CachingSchemaRegistry(MEMORY.computeIfAbsent(name, n -> new InMemorySchemaRegistry()));
            case "kafka":
                Map<String, Object> config = new HashMap<>(clientConfig);
                String bootstrap = rest.replaceFirst("/.*$", "");
                if (!bootstrap.isBlank()) {
                    config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                }
                if (!config.containsKey(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
                    throw new IllegalArgumentException("kafka:// registry needs bootstrap servers: write kafka://host:port or set bootstrap.servers");
                }
                return new CachingSchemaRegistry(new KafkaTopicSchemaRegistry(config));
            case "http":
            case "https":
                Object auth = clientConfig.get(ConfluentRestSchemaRegistry.BASIC_AUTH_USER_INFO);
                return new CachingSchemaRegistry(new ConfluentRestSchemaRegistry(URI.create(trimmed), auth == null ? null : auth.toString()));
            default:
                throw new IllegalArgumentException("schema.registry.url scheme must be http, https, kafka or mem, was '" + url + "'");
        }
    }
}
