package dev.baton.testkit;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.UnmatchedResultHandler;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * All of Baton in one JVM on the embedded broker: topics, the streams app, workers and clients.
 * Used by {@code baton demo} and by the end-to-end integration tests. Closing it closes everything
 * it started, in reverse order.
 */
public final class LocalCluster implements AutoCloseable {

    private final String bootstrapServers;
    /** The embedded broker this instance started and closes; null on a cluster the caller runs. */
    private final AutoCloseable ownedBroker;
    private final Path stateDir;
    private final MeterRegistry meters;
    private final Map<String, Object> streamsConfig;
    private BatonStreamsApp streamsApp;
    private final List<AutoCloseable> started = new ArrayList<>();

    private LocalCluster(EmbeddedKafka kafka, int partitions, List<String> queues, Map<String, Object> streamsOverrides,
                         MeterRegistry meters) {
        this(kafka.bootstrapServers(), kafka, partitions, queues, streamsOverrides, meters);
    }

    private LocalCluster(String bootstrapServers, AutoCloseable ownedBroker, int partitions, List<String> queues,
                         Map<String, Object> streamsOverrides, MeterRegistry meters) {
        this.bootstrapServers = bootstrapServers;
        this.ownedBroker = ownedBroker;
        this.meters = meters;
        try {
            this.stateDir = Files.createTempDirectory("baton-state-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrapServers))) {
            TopicCreator.Report report = new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(partitions), queues));
            if (!report.ok()) {
                throw new IllegalStateException("topic layout mismatch: " + report);
            }
        }
        Map<String, Object> streams = new HashMap<>(clientConfig());
        streams.put("state.dir", stateDir.toString());
        streams.put("timer.resolution.ms", 100L);
        streams.putAll(streamsOverrides);
        this.streamsConfig = Map.copyOf(streams);
        this.streamsApp = new BatonStreamsApp(streams, meters).start();
        awaitRunning();
    }

    /** Starts a broker and Baton's streams app with these queues declared. */
    public static LocalCluster start(int partitions, List<String> queues, Map<String, Object> streamsOverrides) {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
        return new LocalCluster(kafka, partitions, queues, streamsOverrides, new SimpleMeterRegistry());
    }

    /** As {@link #start(int, List, Map)}, with every component's meters in {@code meters}. */
    public static LocalCluster start(int partitions, List<String> queues, Map<String, Object> streamsOverrides, MeterRegistry meters) {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
        return new LocalCluster(kafka, partitions, queues, streamsOverrides, meters);
    }

    /** As {@link #start(int, List, Map)}, keeping the broker's data in {@code dataDir} (a temp dir when null). */
    public static LocalCluster start(int partitions, List<String> queues, Map<String, Object> streamsOverrides, Path dataDir) {
        EmbeddedKafka.Builder broker = EmbeddedKafka.builder();
        if (dataDir != null) {
            broker.dataDir(dataDir);
            keptClusterId(dataDir).ifPresent(broker::clusterId); // a kept log dir starts only under the id it was formatted with
        }
        return new LocalCluster(broker.build().start(), partitions, queues, streamsOverrides, new SimpleMeterRegistry());
    }

    /** The cluster id a kept data dir was formatted with, if it was. */
    static Optional<String> keptClusterId(Path dataDir) {
        Path meta = dataDir.resolve("logs").resolve("meta.properties");
        if (!Files.isRegularFile(meta)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(meta)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta + ": " + e.getMessage(), e);
        }
        return Optional.ofNullable(p.getProperty("cluster.id"));
    }

    /**
     * Baton's topics and streams app on a cluster the caller runs and closes (a multi-broker
     * {@code EmbeddedKafkaCluster}, say): topics get the cluster's default replication factor.
     */
    public static LocalCluster on(String bootstrapServers, int partitions, List<String> queues, Map<String, Object> streamsOverrides) {
        return new LocalCluster(bootstrapServers, null, partitions, queues, streamsOverrides, new SimpleMeterRegistry());
    }

    public static LocalCluster start(int partitions, List<String> queues) {
        return start(partitions, queues, Map.of());
    }

    public Map<String, Object> clientConfig() {
        return ClientConfigs.bootstrap(bootstrapServers);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public MeterRegistry meters() {
        return meters;
    }

    public BatonStreamsApp streamsApp() {
        return streamsApp;
    }

    /** Starts a worker from options pre-filled with this cluster's bootstrap servers. */
    public Worker worker(WorkerOptions.Builder options) {
        Worker w = Worker.start(options.kafkaConfig(clientConfig()).meters(meters).build());
        started.add(w::close);
        return w;
    }

    public DispatchClient client(String clientId, UnmatchedResultHandler unmatched) {
        return client(clientId, unmatched, Map.of());
    }

    public DispatchClient client(String clientId, UnmatchedResultHandler unmatched, Map<String, ?> overrides) {
        Map<String, Object> config = new HashMap<>(clientConfig());
        config.put("baton.client.id", clientId);
        config.putAll(overrides);
        DispatchClient c = DispatchClient.create(config, unmatched, meters);
        started.add(c);
        return c;
    }

    /**
     * Loses the streams app's state the hard way: stops it, deletes its state directory and its
     * changelog topics, and starts it again. Its committed input offsets survive, so nothing it
     * already read is read again: sites it held are simply gone (what {@code baton replay} repairs).
     */
    public void wipeStreamsState() throws Exception {
        streamsApp.close();
        TempDirs.deleteQuietly(stateDir);
        Files.createDirectories(stateDir);
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrapServers))) {
            String prefix = streamsConfig.getOrDefault("application.id", "baton-streams") + "-";
            Set<String> changelogs = new HashSet<>(admin.listTopics().names().get());
            changelogs.removeIf(t -> !t.startsWith(prefix) || !t.endsWith("-changelog"));
            admin.deleteTopics(changelogs).all().get();
        }
        streamsApp = new BatonStreamsApp(streamsConfig, meters).start();
        awaitRunning();
    }

    /**
     * Stops the streams app and starts it again on an empty state directory, as on a new host: its
     * stores come back from their changelogs, and whatever it keeps in memory is rebuilt from them.
     * {@code whileDown} runs between the two.
     */
    public void restartStreamsAppOnEmptyDisk(Runnable whileDown) throws Exception {
        streamsApp.close();
        TempDirs.deleteQuietly(stateDir);
        Files.createDirectories(stateDir);
        whileDown.run();
        streamsApp = new BatonStreamsApp(streamsConfig, meters).start();
        awaitRunning();
    }

    /** Whether the streams app has committed its way to the end of every partition of {@code topic}. */
    public boolean streamsAppCaughtUp(String topic) throws Exception {
        String group = String.valueOf(streamsConfig.getOrDefault("application.id", "baton-streams"));
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrapServers))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (var p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
                ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            }
            for (var end : admin.listOffsets(ends).all().get().entrySet()) {
                var c = committed.get(end.getKey());
                if (end.getValue().offset() > (c == null ? 0 : c.offset())) {
                    return false;
                }
            }
            return true;
        }
    }

    private void awaitRunning() {
        try {
            streamsApp.awaitRunning(PATIENCE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        }
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // keep closing the rest
            }
        }
        streamsApp.close();
        if (ownedBroker != null) {
            try {
                ownedBroker.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the embedded broker failed", e);
            }
        }
        TempDirs.deleteQuietly(stateDir);
    }

    /** How long to wait for a whole cluster operation in tests and the demo. */
    public static final Duration PATIENCE = Duration.ofSeconds(60);
}
