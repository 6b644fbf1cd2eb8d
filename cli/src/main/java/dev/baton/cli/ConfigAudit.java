package dev.baton.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import dev.baton.cli.options.ClientOptions;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a process command does with its configuration before it starts: reads {@code BATON_*}
 * environment overrides, logs the effective configuration with secrets masked, and warns about
 * every key the process does not know, naming the closest key it does know.
 *
 * <p>The overrides themselves are read by {@link dev.baton.cli.options.ClientOptions} (see
 * {@link dev.baton.cli.options.EnvironmentOverrides}).
 */
final class ConfigAudit {

    private static final Logger log = LoggerFactory.getLogger(ConfigAudit.class);

    /** Names whose values are secrets even when no ConfigDef says PASSWORD (client security settings passed through). */
    private static final Pattern SECRET = Pattern.compile(
            "(?i).*(password|passphrase|secret|jaas\\.config|token|credential|api\\.key|user\\.info|private\\.key).*");

    /**
     * The Kafka clients' and Streams' own definitions: a key they type PASSWORD ({@code ssl.keystore.key}, an inline PEM
     * private key; {@code ssl.truststore.certificates}) is a secret whatever its name says (adv23c).
     */
    private static final List<ConfigDef> KAFKA_DEFINITIONS = List.of(ProducerConfig.configDef(), ConsumerConfig.configDef(),
            AdminClientConfig.configDef(), StreamsConfig.configDef());

    private ConfigAudit() {
    }

    /** One warning per key of {@code config} that {@code process} does not know, naming the closest known key. */
    static List<String> unknownKeys(Map<String, ?> config, ProcessKeys process) {
        List<String> out = new ArrayList<>();
        for (String key : new TreeSet<>(config.keySet())) {
            if (!process.knows(key)) {
                out.add("unknown configuration key '" + key + "' for " + process.processName() + " (ignored or passed to Kafka, which ignores it); "
                        + "did you mean '" + closest(key, process.names()) + "'?");
            }
        }
        return out;
    }

    /** The configuration as it may be logged: every secret replaced by {@code [hidden]}. */
    static Map<String, String> masked(Map<String, ?> config, ProcessKeys process) {
        Map<String, String> out = new TreeMap<>();
        config.forEach((k, v) -> out.put(k, isSecret(k, process) ? "[hidden]" : String.valueOf(v)));
        return out;
    }

    /** Logs the effective configuration (masked) and a WARN per unknown key; returns the warnings. */
    static List<String> logAtStart(Map<String, ?> config, ProcessKeys process) {
        StringBuilder lines = new StringBuilder();
        masked(config, process).forEach((k, v) -> lines.append("\n\t").append(k).append(" = ").append(v));
        log.info("{} effective configuration (file, then BATON_* environment, then command line):{}", process.processName(), lines);
        List<String> warnings = unknownKeys(config, process);
        warnings.forEach(log::warn);
        return warnings;
    }

    private static boolean isSecret(String key, ProcessKeys process) {
        ConfigDef.ConfigKey defined = process.definition(key);
        return defined != null && defined.type == ConfigDef.Type.PASSWORD || SECRET.matcher(key).matches() || kafkaPassword(key);
    }

    /** Whether Kafka types {@code key} (or what follows a prefix such as {@code producer.} or {@code main.consumer.}) PASSWORD. */
    private static boolean kafkaPassword(String key) {
        String name = key;
        while (true) {
            for (ConfigDef def : KAFKA_DEFINITIONS) {
                ConfigDef.ConfigKey k = def.configKeys().get(name);
                if (k != null && k.type == ConfigDef.Type.PASSWORD) {
                    return true;
                }
            }
            int dot = name.indexOf('.');
            if (dot < 0) {
                break;
            }
            name = name.substring(dot + 1);
        }
        return false;
    }

    static String closest(String key, Set<String> known) {
        return known.stream().min(Comparator.comparingInt((String k) -> editDistance(key, k)).thenComparing(k -> k)).orElse("?");
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
