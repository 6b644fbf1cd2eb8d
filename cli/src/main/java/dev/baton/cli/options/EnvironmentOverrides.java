package dev.baton.cli.options;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code BATON_*} environment variables as configuration keys: drop {@code BATON_}, lower-case, read
 * {@code _} as {@code .} and {@code __} as a literal {@code _} ({@code BATON_WORKER_QUEUES} →
 * {@code worker.queues}). The launcher's own variables ({@link #LAUNCHER_VARIABLES}) are not keys.
 */
public final class EnvironmentOverrides {

    public static final String PREFIX = "BATON_";

    /** Variables read by the baton launcher, the image and the tests, never configuration keys. */
    public static final Set<String> LAUNCHER_VARIABLES = Set.of("BATON_JAVA_OPTS", "BATON_LIB_DIR", "BATON_LOG_LEVEL", "BATON_PROMTOOL",
            "BATON_REBUILD", "BATON_TAG");

    private EnvironmentOverrides() {
    }

    /** The {@code BATON_*} variables of {@code env} as configuration keys and values. */
    public static Map<String, String> of(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith(PREFIX) && name.length() > PREFIX.length() && !LAUNCHER_VARIABLES.contains(name)) {
                out.put(keyOf(name), value);
            }
        });
        return out;
    }

    /** {@code BATON_WORKER_QUEUES} → {@code worker.queues}. */
    public static String keyOf(String envName) {
        return envName.substring(PREFIX.length()).toLowerCase(Locale.ROOT).replace("__", "\u0000").replace('_', '.').replace('\u0000', '_');
    }
}
