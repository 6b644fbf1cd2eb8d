package dev.baton.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * {@link ClientMeters} bound the client with ({@code worker-events}, {@code worker-tasks/payments}),
 * or, for a client it does not know (Kafka Streams'), what follows the process UUID in its id
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
    private static final Pattern THROUGH_UUID = Pattern.compile(".*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-?");
    private static final Map<MeterRegistry, KafkaClientTags> INSTALLED = new WeakHashMap<>();

    private final Map<String, String> roles = new ConcurrentHashMap<>();

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

    /** Labels the meters of the client {@code clientId} with {@code role}; call it before binding them. */
    public void name(String clientId, String role) {
        roles.put(clientId, role);
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

    /** What follows a UUID in a Kafka Streams client or thread id ({@code app-<uuid>-StreamThread-1-consumer}); the id itself otherwise. */
    static String withoutProcessId(String id) {
        String rest = THROUGH_UUID.matcher(id).replaceFirst("");
        return rest.isEmpty() ? "streams" : rest;
    }
}
