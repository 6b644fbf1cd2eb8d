package dev.baton.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates Baton's topics idempotently: missing ones are created, existing ones are checked.
 *
 * <p>A partition-count mismatch is reported, never "fixed": adding partitions to
 * {@code baton.dispatch} or {@code baton.worker-events} would move sites between Streams tasks and
 * break co-partitioning, so an operator must decide.
 *
 * <p>{@link #create} returns once every partition of a topic it created accepts writes at its
 * leader, not merely once the controller has recorded the topic: an idempotent producer that writes
 * to a partition its leader has not opened yet can lose its first batch (docs/decisions.md,
 * "Idempotent writes to a just-created topic").
 */
public final class TopicCreator {

    /** What {@link #create} did. {@code mismatches} is empty when every existing topic has the declared shape. */
    public record Report(List<String> created, List<String> existing, List<String> mismatches) {
        public boolean ok() {
            return mismatches.isEmpty();
        }

        @Override
        public String toString() {
            return "created " + created + ", already present " + existing.size()
                    + (mismatches.isEmpty() ? "" : ", MISMATCHES: " + String.join("; ", mismatches));
        }
    }

    private final Admin admin;

    public TopicCreator(Admin admin) {
        this.admin = admin;
    }

    public Report create(Collection<TopicSpec> specs) {
        try {
            Set<String> present = admin.listTopics().names().get();
            List<String> created = new ArrayList<>();
            List<String> existing = new ArrayList<>();
            List<NewTopic> toCreate = new ArrayList<>();
            for (TopicSpec spec : specs) {
                if (present.contains(spec.name())) {
                    existing.add(spec.name());
                } else {
                    toCreate.add(spec.toNewTopic());
                }
            }
            for (Map.Entry<String, ? extends KafkaFuture<Void>> e : admin.createTopics(toCreate).values().entrySet()) {
                try {
                    e.getValue().get();
                    created.add(e.getKey());
                } catch (ExecutionException ex) {
                    if (!(ex.getCause() instanceof TopicExistsException)) {
                        throw new KafkaException("cannot create topic " + e.getKey() + ": " + ex.getCause().getMessage(), ex.getCause());
                    }
                    existing.add(e.getKey()); // another process created it meanwhile
                }
            }
            awaitWritable(specs, created);
            return new Report(created, existing, mismatches(specs, existing));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new KafkaException("cannot list or describe topics: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** How long created topics may take to be writable before creating them fails. */
    private static final Duration WRITABLE_WITHIN = Duration.ofSeconds(60);
    private static final Duration RETRY_BACKOFF = Duration.ofMillis(50);

    /**
     * Waits until the leader of every partition of the {@code created} topics answers for it. A broker shows a new
     * partition in its metadata before its replica manager opens it, and a produce in between is
     * refused with a retriable error while a later batch of the same producer may already be taken
     * (Kafka before 4.5, KAFKA-15591). A ListOffsets is answered only by a leader whose log is open,
     * the same check a produce passes, and the admin client retries it until then.
     */
    private void awaitWritable(Collection<TopicSpec> specs, List<String> created) throws InterruptedException, ExecutionException {
        if (created.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        for (TopicSpec spec : specs) {
            if (created.contains(spec.name())) {
                for (int p = 0; p < spec.partitions(); p++) {
                    partitions.put(new TopicPartition(spec.name(), p), OffsetSpec.latest());
                }
            }
        }
        // The admin client retries a leader that is not ready, but not a topic its broker's metadata does not show yet
        // (moments after the controller created it, on a loaded machine): that is asked again here, for a bounded time.
        long deadline = System.nanoTime() + WRITABLE_WITHIN.toNanos();
        while (true) {
            try {
                admin.listOffsets(partitions).all().get();
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(RETRY_BACKOFF.toMillis());
            }
        }
    }

    private List<String> mismatches(Collection<TopicSpec> specs, List<String> existing) throws InterruptedException, ExecutionException {
        if (existing.isEmpty()) {
            return List.of();
        }
        Map<String, TopicSpec> byName = specs.stream().collect(Collectors.toMap(TopicSpec::name, Function.identity(), (a, b) -> a));
        Map<String, TopicDescription> described = admin.describeTopics(existing).allTopicNames().get();
        List<String> mismatches = new ArrayList<>();
        for (TopicDescription d : described.values()) {
            int want = byName.get(d.name()).partitions();
            if (d.partitions().size() != want) {
                mismatches.add(d.name() + " has " + d.partitions().size() + " partitions, declared " + want
                        + " (Baton will not change it: repartitioning moves sites between tasks; recreate it or change the layout)");
            }
        }
        mismatches.addAll(configMismatches(byName, existing));
        return mismatches;
    }

    /**
     * The declared configs an existing topic does not have, where a difference breaks what Baton reads the topic for: the
     * cleanup policy ({@code baton.workers} compacted, every other topic not: compaction keeps one record per key, and
     * {@code baton.history} would lose the dispatches replay finds dangling sites by, {@code baton.results} the outcomes
     * callers have not read and replay answers by, {@code _baton_schemas} the first registrations that are its ids), and
     * the schema topic's infinite retention. History's retention is the operator's to choose (scans read what is left), so it is not checked.
     * A principal that may not describe configs gets no check rather than a failure.
     */
    private List<String> configMismatches(Map<String, TopicSpec> byName, List<String> existing) throws InterruptedException, ExecutionException {
        List<ConfigResource> resources = existing.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> configs;
        try {
            configs = admin.describeConfigs(resources).all().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthorizationException) {
                return List.of();
            }
            throw e;
        }
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<ConfigResource, Config> e : configs.entrySet()) {
            String topic = e.getKey().name();
            Map<String, String> wanted = new java.util.TreeMap<>(byName.get(topic).configs());
            if (topic.equals(BatonTopics.HISTORY)) {
                wanted.keySet().removeIf(k -> k.startsWith("retention."));
            }
            // Only baton.workers is compacted: compaction of any other topic keeps one record per key (a site, a client id)
            // and drops the commands, reports, tasks or outcomes before it, read or not.
            wanted.putIfAbsent(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
            for (Map.Entry<String, String> w : wanted.entrySet()) {
                ConfigEntry actual = e.getValue().get(w.getKey());
                String value = actual == null ? null : actual.value();
                if (!w.getValue().equals(value)) {
                    mismatches.add(topic + " has " + w.getKey() + "=" + value + ", declared " + w.getValue()
                            + " (Baton will not change it; set it with kafka-configs --alter --entity-type topics --entity-name " + topic
                            + " --add-config " + w.getKey() + "=" + w.getValue() + ")");
                }
            }
        }
        return mismatches;
    }
}
