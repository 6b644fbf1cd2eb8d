package dev.baton.testkit.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.testkit.BatonProcess;
import dev.baton.testkit.TempDirs;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One phase of the scale soak's world: an embedded broker of its own (in this JVM), Baton's topics
 * with these queues, and one streams-app process with its own state dir. Every phase gets a fresh
 * one, so no phase's figures carry another's backlog. Closing it stops the streams app and the broker
 * and deletes both their directories.
 */
public final class ScaleStage implements AutoCloseable {

    /** The streams app's consumer group (its application id, left at the default). */
    public static final String STREAMS_GROUP = "baton-streams";

    private final EmbeddedKafka broker;
    private final Path work;
    private final Path stateDir;
    private final String maxHeap;
    private final BatonProcess streams;
    private final Admin admin;

    private ScaleStage(EmbeddedKafka broker, Path work, Path stateDir, String maxHeap, BatonProcess streams, Admin admin) {
        this.broker = broker;
        this.work = work;
        this.stateDir = stateDir;
        this.maxHeap = maxHeap;
        this.streams = streams;
        this.admin = admin;
    }

    /**
     * Starts the broker, creates Baton's topics ({@code partitions} each; every queue's task topic
     * {@code taskPartitions}) and the streams app with {@code -Xmx<maxHeap>}.
     */
    public static ScaleStage start(List<String> queues, int partitions, int taskPartitions, String maxHeap) {
        return start(queues, partitions, taskPartitions, maxHeap, List.of());
    }

    /** As {@link #start(List, int, int, String)}, with more {@code key=value} lines in the streams app's config file. */
    public static ScaleStage start(List<String> queues, int partitions, int taskPartitions, String maxHeap, List<String> streamsConfig) {
        EmbeddedKafka broker = EmbeddedKafka.builder().build().start();
        Admin admin = null;
        try {
            Path work = Files.createTempDirectory("baton-scale-");
            admin = Admin.create(ClientConfigs.admin(broker.bootstrapServers()));
            List<TopicSpec> specs = BatonTopics.all(TopicLayout.defaults().withPartitions(partitions), queues).stream()
                    .map(s -> s.name().startsWith(BatonTopics.TASKS_PREFIX)
                            ? new TopicSpec(s.name(), taskPartitions, s.replicationFactor(), s.configs()) : s)
                    .toList();
            TopicCreator.Report report = new TopicCreator(admin).create(specs);
            if (!report.ok()) {
                throw new IllegalStateException("topic layout mismatch: " + report);
            }
            Path stateDir = Files.createDirectories(work.resolve("streams-state"));
            BatonProcess streams = BatonProcess.streamsApp(broker.bootstrapServers(), "streams-1", stateDir, streamsConfig, maxHeap);
            return new ScaleStage(broker, work, stateDir, maxHeap, streams, admin);
        } catch (IOException e) {
            closeQuietly(admin);
            broker.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            closeQuietly(admin);
            broker.close();
            throw e;
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public Admin admin() {
        return admin;
    }

    public BatonProcess streamsApp() {
        return streams;
    }

    public String maxHeap() {
        return maxHeap;
    }

    /** The streams app's RocksDB state dir. */
    public Path stateDir() {
        return stateDir;
    }

    /** The broker's log dir (the changelogs, history and the rest). */
    public Path brokerDataDir() {
        return broker.dataDir();
    }

    /** Settings for a Baton client of this stage named {@code clientId}. */
    public Map<String, Object> clientConfig(String clientId) {
        return ClientConfigs.settings(bootstrapServers(), Map.of(DispatchClientConfig.CLIENT_ID_CONFIG, clientId));
    }

    /** The dispatch records the streams app has committed its way past: the sites it has taken in, in a pending phase. -1 if unknown. */
    public long dispatchesConsumed() {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(STREAMS_GROUP).partitionsToOffsetAndMetadata().get();
            return committed.entrySet().stream().filter(e -> e.getKey().topic().equals(BatonTopics.DISPATCH) && e.getValue() != null)
                    .mapToLong(e -> e.getValue().offset()).sum();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (java.util.concurrent.ExecutionException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        try {
            streams.stop();
        } catch (RuntimeException e) {
            streams.close();
        }
        closeQuietly(admin);
        broker.close();
        TempDirs.deleteQuietly(work);
    }

    private static void closeQuietly(Admin admin) {
        if (admin != null) {
            try {
                admin.close();
            } catch (RuntimeException e) {
                // closing anyway
            }
        }
    }
}
