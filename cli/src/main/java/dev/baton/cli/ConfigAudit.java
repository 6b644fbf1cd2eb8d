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
import org.apache.kafka.common.config.ConfigDef;
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
    private static final Pattern SECRET = Pattern.compile("(?i).*(password|secret|jaas\\.config|token|credential|api\\.key).*");

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
        return defined != null && defined.type == ConfigDef.Type.PASSWORD || SECRET.matcher(key).matches();
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
