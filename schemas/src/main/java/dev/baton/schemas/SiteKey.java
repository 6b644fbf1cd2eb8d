package dev.baton.schemas;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import dev.baton.events.SiteRef;

/**
 * One activity execution site: {@code (namespace, workflowId, activityId)}.
 *
 * <p>Its Kafka key is the UTF-8 string {@code namespace/workflowId/activityId} in which each part
 * has {@code %} and {@code /} percent-encoded, so the separator is unambiguous, partitioning is
 * stable across processes and languages, and a console consumer shows a readable key.
 */
public record SiteKey(String namespace, String workflowId, String activityId) {

    public SiteKey {
        requireNonEmpty("namespace", namespace);
        requireNonEmpty("workflowId", workflowId);
        requireNonEmpty("activityId", activityId);
    }

    public static SiteKey of(SiteRef ref) {
        return new SiteKey(ref.getNamespace(), ref.getWorkflowId(), ref.getActivityId());
    }

    /** Parses the key form; throws {@link IllegalArgumentException} naming the bad input. */
    public static SiteKey parse(String key) {
        Objects.requireNonNull(key, "site key");
        int first = key.indexOf('/');
        int second = first < 0 ? -1 : key.indexOf('/', first + 1);
        if (second < 0 || key.indexOf('/', second + 1) >= 0) {
            long parts = key.chars().filter(c -> c == '/').count() + 1;
            throw new IllegalArgumentException("a site key has 3 '/'-separated parts, was " + parts + " in '" + key + "'");
        }
        return new SiteKey(unescape(key.substring(0, first), key), unescape(key.substring(first + 1, second), key),
                unescape(key.substring(second + 1), key));
    }

    public static SiteKey fromBytes(byte[] key) {
        return parse(new String(key, StandardCharsets.UTF_8));
    }

    public SiteRef toRef() {
        return new SiteRef(namespace, workflowId, activityId);
    }

    /** The Kafka key string. */
    public String asKey() {
        return escape(namespace) + '/' + escape(workflowId) + '/' + escape(activityId);
    }

    public byte[] toBytes() {
        return asKey().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return asKey();
    }

    private static String escape(String part) {
        if (part.indexOf('%') < 0 && part.indexOf('/') < 0) {
            return part;
        }
        return part.replace("%", "%25").replace("/", "%2F");
    }

    private static String unescape(String part, String key) {
        if (part.indexOf('%') < 0) {
            return part;
        }
        StringBuilder out = new StringBuilder(part.length());
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c != '%') {
                out.append(c);
            } else if (part.startsWith("%25", i)) {
                out.append('%');
                i += 2;
            } else if (part.startsWith("%2F", i)) {
                out.append('/');
                i += 2;
            } else {
                throw new IllegalArgumentException("only %25 and %2F are escapes in a site key, found '" + part.substring(i) + "' in '" + key + "'");
            }
        }
        return out.toString();
    }

    private static void requireNonEmpty(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must be a non-empty string, was " + (value == null ? "null" : "''"));
        }
    }
}
