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
public final class SiteKey {

    private final String namespace;
    private final String workflowId;
    private final String activityId;
    /**
     * The key form, made once: the streams app writes a site's key into its store and into every
     * record it sends for the site, four to six times per event, and escaping and joining the parts
     * each time was 3% of the stream thread.
     */
    private final String key;
    /** The key's UTF-8 bytes, made once for the same reason; handed out by {@link #toBytes()}, never written. */
    private final byte[] keyBytes;

    public SiteKey(String namespace, String workflowId, String activityId) {
        this(namespace, workflowId, activityId, null, null);
    }

    /**
     * {@code key}, when given, is the key form of the parts (a parsed key), and {@code keyBytes}, when given, its UTF-8
     * bytes: each is kept instead of being made again.
     */
    private SiteKey(String namespace, String workflowId, String activityId, String key, byte[] keyBytes) {
        requireNonEmpty("namespace", namespace);
        requireNonEmpty("workflowId", workflowId);
        requireNonEmpty("activityId", activityId);
        this.namespace = namespace;
        this.workflowId = workflowId;
        this.activityId = activityId;
        this.key = key != null ? key : escape(namespace) + '/' + escape(workflowId) + '/' + escape(activityId);
        this.keyBytes = keyBytes != null ? keyBytes : this.key.getBytes(StandardCharsets.UTF_8);
    }

    public String namespace() {
        return namespace;
    }

    public String workflowId() {
        return workflowId;
    }

    public String activityId() {
        return activityId;
    }

    public static SiteKey of(SiteRef ref) {
        return new SiteKey(ref.getNamespace(), ref.getWorkflowId(), ref.getActivityId());
    }

    /** Parses the key form; throws {@link IllegalArgumentException} naming the bad input. */
    public static SiteKey parse(String key) {
        return parse(key, null);
    }

    private static SiteKey parse(String key, byte[] keyBytes) {
        Objects.requireNonNull(key, "site key");
        int first = key.indexOf('/');
        int second = first < 0 ? -1 : key.indexOf('/', first + 1);
        if (second < 0 || key.indexOf('/', second + 1) >= 0) {
            long parts = key.chars().filter(c -> c == '/').count() + 1;
            throw new IllegalArgumentException("a site key has 3 '/'-separated parts, was " + parts + " in '" + key + "'");
        }
        // unescape accepts only %25 and %2F, which escape writes back the same way: the parsed key is the key form.
        return new SiteKey(unescape(key.substring(0, first), key), unescape(key.substring(first + 1, second), key),
                unescape(key.substring(second + 1), key), key, keyBytes);
    }

    /**
     * Parses a key read from Kafka or a store. An ASCII key is kept as this key's {@link #toBytes()} (decoding and encoding
     * it gives the same bytes; the streams app parses two keys per activity), so the caller must not modify it afterwards.
     */
    public static SiteKey fromBytes(byte[] key) {
        return parse(new String(key, StandardCharsets.UTF_8), isAscii(key) ? key : null);
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    public SiteRef toRef() {
        return new SiteRef(namespace, workflowId, activityId);
    }

    /** The Kafka key string. */
    public String asKey() {
        return key;
    }

    /**
     * The Kafka key bytes (UTF-8 of {@link #asKey()}). The array is this key's own, shared by every
     * caller (the streams app writes it into a store and several records per event): do not modify it.
     */
    public byte[] toBytes() {
        return keyBytes;
    }

    /** Sites are equal when their parts are, which is when their key forms are (escaping is one-to-one). */
    @Override
    public boolean equals(Object o) {
        return o instanceof SiteKey other && key.equals(other.key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return key;
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
