package dev.baton.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Keeps process ids out of the Kafka clients' meter labels. Micrometer's Kafka binders tag every
 * meter with the client's {@code client.id} (Baton's name a worker id, Kafka Streams' a random
 * process UUID), and Streams' with {@code thread.id} and {@code process.id} built from it: a new
 * series per process start. This filter replaces {@code client.id} by {@code role}: the role
 * {@link ClientMeters} bound the client with ({@code worker-events}, {@code worker-tasks/payments};
 * the second client of a role in one registry is {@code worker-events#2}, and so on, so that each keeps
 * its own series), or, for a client it does not know (Kafka Streams'), what follows the process UUID in its id
 * ({@code StreamThread-1-consumer}); {@code thread.id} keeps what follows the UUID, and
 * {@code process.id} is emptied (an empty label is no label in Prometheus).
 *
 * <p>Tags are replaced, never dropped: Micrometer's Kafka binder removes a meter when another of the
 * same name comes with more tags, so every meter of a name must keep the same number.
 */
public final class KafkaClientTags implements MeterFilter {

    /** The label that names a Kafka client's role in its process. */
    public static final String ROLE = "role";
    private static final String CLIENT_ID = "client.id";
    private static final String THREAD_ID = "thread.id";
    private static final String PROCESS_ID = "process.id";
    private static final Pattern THROUGH_UUID = Pattern.compile(".*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-?");
    private static final Map<MeterRegistry, KafkaClientTags> INSTALLED = new WeakHashMap<>();

    private final Map<String, String> roles = new ConcurrentHashMap<>();
    private final Map<String, Integer> clientsPerRole = new HashMap<>();
    private final Map<String, Integer> processes = new HashMap<>();

    /** The filter of {@code registry}, installed on first use; install it before any Kafka client meter is bound there. */
    public static KafkaClientTags installOn(MeterRegistry registry) {
        synchronized (INSTALLED) {
            return INSTALLED.computeIfAbsent(registry, r -> {
                KafkaClientTags filter = new KafkaClientTags();
                r.config().meterFilter(filter);
                return filter;
            });
        }
    }

    /**
     * Labels the meters of the client {@code clientId} with {@code role}, numbered from the second
     * client of that role on ({@code role#2}); call it before binding them. Without the number two
     * workers in one JVM would map to the same meter ids: Micrometer keeps the first, warns about the
     * second, and the first one's close removes the meters the second still feeds.
     */
    public synchronized void name(String clientId, String role) {
        if (!roles.containsKey(clientId)) {
            int n = clientsPerRole.merge(role, 1, Integer::sum);
            roles.put(clientId, n == 1 ? role : role + "#" + n);
        }
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith("kafka.")
                || id.getTag(CLIENT_ID) == null && id.getTag(THREAD_ID) == null && id.getTag(PROCESS_ID) == null) {
            return id;
        }
        List<Tag> tags = new ArrayList<>();
        for (Tag t : id.getTagsAsIterable()) {
            switch (t.getKey()) {
                case CLIENT_ID -> tags.add(Tag.of(ROLE, roles.getOrDefault(t.getValue(), withoutProcessId(t.getValue()))));
                case THREAD_ID -> tags.add(Tag.of(THREAD_ID, withoutProcessId(t.getValue())));
                case PROCESS_ID -> tags.add(Tag.of(PROCESS_ID, ""));
                default -> tags.add(t);
            }
        }
        return id.replaceTags(tags);
    }

    /**
     * What follows the UUID in a Kafka Streams client or thread id ({@code app-<uuid>-StreamThread-1-consumer}),
     * numbered from the second Streams instance seen in this registry on ({@code StreamThread-1-consumer#2}, two
     * instances in one JVM); the id itself when it holds no UUID.
     */
    private String withoutProcessId(String id) {
        Matcher m = THROUGH_UUID.matcher(id);
        if (!m.lookingAt()) {
            return id;
        }
        String rest = id.substring(m.end());
        String local = rest.isEmpty() ? "streams" : rest;
        int n;
        synchronized (processes) {
            n = processes.computeIfAbsent(m.group(1), uuid -> processes.size() + 1);
        }
        return n == 1 ? local : local + "#" + n;
    }
}
