package dev.baton.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;

import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster of N KRaft nodes started in one JVM: every node is a broker and a voter of
 * the controller quorum (combined mode), so any minority of nodes may be lost.
 *
 * <p>With three nodes or more, every topic defaults to replication factor 3 and
 * {@code min.insync.replicas=2}, the internal topics (consumer offsets, transaction state, share
 * state) included; with fewer, to as many replicas as nodes and one in sync. A topic created with
 * replication factor -1 (the broker default) therefore gets the production shape.
 *
 * <p>{@link #kill(int)} takes one node away the way a crash does as far as the rest of the cluster
 * is concerned: no controlled shutdown, so nothing moves leadership off it first; the controller
 * notices the node is gone by its missed heartbeats ({@code broker.session.timeout.ms}, shortened
 * here) and only then elects new leaders from the in-sync replicas. Ports are chosen once and kept
 * across restarts, so clients built before a kill reconnect to the node when it is back.
 *
 * <p>By default the nodes run in this JVM, and a kill closes the node's log files cleanly, so
 * {@link #restart(int)} does no log recovery. Built with {@link Builder#separateProcesses()}, every
 * node is a child JVM: {@link #kill(int)} is a real {@code kill -9}, {@link #stop(int)} a SIGTERM
 * with a controlled shutdown (leadership moves off the node first, as in a rolling restart), and
 * {@link #pause(int, Duration)} freezes the node (SIGSTOP, then SIGCONT), so clients and peers
 * find it silent while it still holds its sockets, as a node cut off from the network does.
 *
 * <pre>{@code
 * try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder().nodes(3).build().start()) {
 *     int leader = kafka.leaderOf("baton.dispatch", 0).orElseThrow();
 *     kafka.kill(leader);
 *     kafka.restart(leader);
 * }
 * }</pre>
 *
 * <p>Not thread-safe: start, kill, restart and close from one thread. The queries may be called from any.
 */
public final class EmbeddedKafkaCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaCluster.class);
    /** How long a node may take to start or stop, and a metadata query to answer. */
    private static final long PATIENCE_SECONDS = 120;

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final String clusterId;
    private final Map<String, String> overrides;
    private final boolean separateProcesses;
    private final SortedMap<Integer, NodeSlot> nodes = new TreeMap<>();

    private EmbeddedKafkaCluster(Builder builder) {
        try {
            this.ownsDataDir = builder.dataDir == null;
            this.dataDir = ownsDataDir ? Files.createTempDirectory("baton-kafka-cluster-") : builder.dataDir;
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster's data directory", e);
        }
        this.clusterId = builder.clusterId;
        this.overrides = Map.copyOf(builder.overrides);
        this.separateProcesses = builder.separateProcesses;
        int[] ports = EmbeddedKafka.freePorts(2 * builder.nodes);
        for (int id = 1; id <= builder.nodes; id++) {
            nodes.put(id, new NodeSlot(id, ports[2 * id - 2], ports[2 * id - 1], dataDir.resolve("node-" + id)));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Formats every node's data directory if it is new and starts all nodes at once (a node's start
     * waits for a quorum of controllers, so they cannot start one after another). Returns {@code this}.
     */
    public synchronized EmbeddedKafkaCluster start() {
        inParallel(nodes.keySet(), this::startNode, "start");
        log.info("Embedded Kafka cluster of {} nodes started on {} (data {})", nodes.size(), bootstrapServers(), dataDir);
        return this;
    }

    /**
     * Takes node {@code id} away without a controlled shutdown (see the class comment): a
     * {@code kill -9} when the nodes are separate processes. Returns once it has stopped; the
     * surviving nodes elect new leaders for its partitions within {@code broker.session.timeout.ms}.
     */
    public synchronized void kill(int id) {
        crashNode(id);
    }

    /**
     * Stops node {@code id} in order: with separate processes a SIGTERM and a controlled shutdown,
     * which moves leadership off the node before it goes (one step of a rolling restart); in this
     * JVM the same as {@link #kill(int)}. Returns once it has stopped.
     */
    public synchronized void stop(int id) {
        stopNode(id);
    }

    /**
     * Freezes node {@code id} for {@code outage} and resumes it (separate processes only): it stays
     * up with its sockets open but answers nobody, clients and peers alike, so the controller fences
     * it and its partitions get new leaders; resumed, it finds itself fenced and catches up.
     */
    public void pause(int id, Duration outage) throws InterruptedException {
        NodeRuntime node;
        synchronized (this) {
            node = running(id);
        }
        log.info("Embedded Kafka node {} paused for {}", id, outage);
        node.pause(outage);
        log.info("Embedded Kafka node {} resumed", id);
    }

    private void crashNode(int id) {
        running(id).crash();
        slot(id).runtime = null;
        log.info("Embedded Kafka node {} (127.0.0.1:{}) killed", id, slot(id).brokerPort);
    }

    private void stopNode(int id) {
        running(id).stop();
        slot(id).runtime = null;
        log.info("Embedded Kafka node {} (127.0.0.1:{}) stopped", id, slot(id).brokerPort);
    }

    private NodeRuntime running(int id) {
        NodeRuntime node = slot(id).runtime;
        if (node == null) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        return node;
    }

    /** Starts node {@code id} again on its data directory and ports; returns once it serves as a broker. */
    public synchronized void restart(int id) {
        if (slot(id).runtime != null) {
            throw new IllegalStateException("node " + id + " is already running");
        }
        startNode(id);
    }

    public boolean isRunning(int id) {
        return slot(id).runtime != null;
    }

    /** The node ids, 1 to N. */
    public Set<Integer> nodeIds() {
        return nodes.keySet();
    }

    /** Every node's client address, running or not: clients skip the ones that do not answer. */
    public String bootstrapServers() {
        return nodes.values().stream().map(n -> "127.0.0.1:" + n.brokerPort).collect(Collectors.joining(","));
    }

    /** The replication factor topics get by default here: 3 from three nodes on, else the node count. */
    public short replicationFactor() {
        return (short) Math.min(3, nodes.size());
    }

    /** The default {@code min.insync.replicas}: 2 from three nodes on, else 1. */
    public int minInsyncReplicas() {
        return nodes.size() >= 3 ? 2 : 1;
    }

    /** The node leading {@code topic}'s {@code partition}, as the cluster's metadata says now; empty while it has none. */
    public OptionalInt leaderOf(String topic, int partition) {
        TopicPartitionInfo info = describe(topic).get(partition);
        if (info == null) {
            throw new IllegalArgumentException(topic + " has no partition " + partition);
        }
        Node leader = info.leader();
        return leader == null || leader.isEmpty() ? OptionalInt.empty() : OptionalInt.of(leader.id());
    }

    /** Partition → leading node id of {@code topic}; a partition without a leader maps to -1. */
    public SortedMap<Integer, Integer> leaders(String topic) {
        SortedMap<Integer, Integer> out = new TreeMap<>();
        describe(topic).forEach((p, info) -> out.put(p, info.leader() == null || info.leader().isEmpty() ? -1 : info.leader().id()));
        return out;
    }

    /** Partition → ids of the in-sync replicas of {@code topic}. */
    public SortedMap<Integer, List<Integer>> inSyncReplicas(String topic) {
        SortedMap<Integer, List<Integer>> out = new TreeMap<>();
        describe(topic).forEach((p, info) -> out.put(p, info.isr().stream().map(Node::id).sorted().toList()));
        return out;
    }

    /** The node leading the most partitions of {@code topic} (the lowest id on a tie). */
    public int nodeLeadingMost(String topic) {
        SortedMap<Integer, Integer> counts = new TreeMap<>();
        leaders(topic).values().stream().filter(id -> id >= 0).forEach(id -> counts.merge(id, 1, Integer::sum));
        int best = -1;
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            if (best < 0 || e.getValue() > counts.get(best)) {
                best = e.getKey();
            }
        }
        if (best < 0) {
            throw new IllegalStateException(topic + " has no partition with a leader");
        }
        return best;
    }

    /** The node coordinating {@code transactionalId}'s transactions now (the leader of its {@code __transaction_state} partition). */
    public int transactionCoordinatorOf(String transactionalId) {
        try (Admin admin = admin()) {
            return admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                    .get(PATIENCE_SECONDS, TimeUnit.SECONDS).coordinatorId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing transactional id " + transactionalId, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe transactional id " + transactionalId + ": " + e, e);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    /**
     * Stops every running node at once; deletes the data directory when this instance created it. A data directory that
     * is to be deleted keeps nothing worth a controlled shutdown, so its nodes are killed: stopped together, the last
     * ones to go have no controller quorum left to grant theirs, and a child process waited a minute for it before it
     * was killed anyway (one CI run lost 60 s so).
     */
    @Override
    public synchronized void close() {
        List<Integer> running = nodes.values().stream().filter(n -> n.runtime != null).map(n -> n.id).toList();
        try {
            inParallel(running, ownsDataDir ? this::crashNode : this::stopNode, ownsDataDir ? "kill" : "stop");
        } finally {
            if (ownsDataDir) {
                Dirs.deleteRecursively(dataDir);
            }
        }
    }

    private Map<Integer, TopicPartitionInfo> describe(String topic) {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(PATIENCE_SECONDS, TimeUnit.SECONDS).get(topic).partitions()
                    .stream().collect(Collectors.toMap(TopicPartitionInfo::partition, p -> p, (a, b) -> a, TreeMap::new));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic + ": " + e, e);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(), AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }

    private void startNode(int id) {
        NodeSlot node = slot(id);
        Properties props = nodeProperties(node);
        Path config = format(node, props);
        node.runtime = separateProcesses
                ? ChildProcessNode.start("kafka-node-" + id, config, Duration.ofSeconds(PATIENCE_SECONDS))
                : InProcessNode.start(props);
        log.info("Embedded Kafka node {} started on 127.0.0.1:{}{}", id, node.brokerPort, separateProcesses ? " in its own JVM" : "");
    }

    private Properties nodeProperties(NodeSlot node) {
        String voters = nodes.values().stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
        // The production shape: every topic, internal ones too, survives the loss of one node.
        Properties p = KraftNode.properties(node.id, voters, node.brokerPort, node.controllerPort, node.brokerPort, node.dir,
                replicationFactor(), minInsyncReplicas());
        p.put("unclean.leader.election.enable", "false");
        // In this JVM a stop is a crash to the rest of the cluster: leadership moves only once the node
        // is found dead. A child process crashes by kill -9 and stops with a controlled shutdown.
        p.put("controlled.shutdown.enable", String.valueOf(separateProcesses));
        // Found dead after 4 s of silence instead of 9: tests wait less, and 8 missed heartbeats are still needed.
        p.put("broker.session.timeout.ms", "4000");
        p.put("broker.heartbeat.interval.ms", "500");
        // Several brokers share a few cores here: fewer threads each than a dedicated host's defaults.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("background.threads", "4");
        p.putAll(overrides);
        return p;
    }

    /** Formats the node's directory if new; returns the {@code server.properties} it wrote, which a child process starts from. */
    private Path format(NodeSlot node, Properties props) {
        try {
            Files.createDirectories(node.dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + node.dir, e);
        }
        Path config = node.dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            props.store(w, "written by EmbeddedKafkaCluster: formatting reads it, and a node in its own JVM starts from it");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            StorageTool.execute(new String[]{"format", "-t", clusterId, "-c", config.toString(), "--ignore-formatted"}, ps);
        } catch (Exception e) {
            throw new IllegalStateException("formatting " + node.dir + " failed: " + out.toString(StandardCharsets.UTF_8), e);
        }
        return config;
    }

    private NodeSlot slot(int id) {
        NodeSlot node = nodes.get(id);
        if (node == null) {
            throw new IllegalArgumentException("node id must be one of " + nodes.keySet() + ", was " + id);
        }
        return node;
    }

    private static void inParallel(Iterable<Integer> ids, IntConsumer action, String what) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int id : ids) {
            all.add(CompletableFuture.runAsync(() -> action.accept(id), runnable -> {
                Thread t = new Thread(runnable, "baton-kafka-node-" + id + "-" + what);
                t.setDaemon(true);
                t.start();
            }));
        }
        try {
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(PATIENCE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the nodes " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a node failed to " + what + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the nodes did not " + what + " within " + PATIENCE_SECONDS + " s", e);
        }
    }

    /** One node's fixed identity (id, ports, directory) and, while it runs, its runtime. */
    private static final class NodeSlot {
        final int id;
        final int brokerPort;
        final int controllerPort;
        final Path dir;
        volatile NodeRuntime runtime;

        NodeSlot(int id, int brokerPort, int controllerPort, Path dir) {
            this.id = id;
            this.brokerPort = brokerPort;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }
    }

    /** Options of an {@link EmbeddedKafkaCluster}; every one has a working default. */
    public static final class Builder {
        private int nodes = 3;
        private Path dataDir;
        private String clusterId = Uuid.randomUuid().toString();
        private final Map<String, String> overrides = new HashMap<>();
        private boolean separateProcesses;

        private Builder() {
        }

        /**
         * Runs every node as a child JVM on this JVM's class path, so kills are {@code kill -9},
         * stops are controlled shutdowns and nodes can be paused (see the class comment).
         */
        public Builder separateProcesses() {
            this.separateProcesses = true;
            return this;
        }

        /** How many nodes, each a broker and a controller (default 3). */
        public Builder nodes(int n) {
            if (n < 1 || n > 9) {
                throw new IllegalArgumentException("nodes must be in 1..9, was " + n);
            }
            this.nodes = n;
            return this;
        }

        /** Keep data here (one sub-directory per node); by default a temp dir deleted on close. */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /** The cluster id written when formatting; must stay the same for an existing data dir. */
        public Builder clusterId(String id) {
            this.clusterId = id;
            return this;
        }

        /** Any broker setting, applied to every node after the defaults. */
        public Builder brokerProperty(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        public EmbeddedKafkaCluster build() {
            return new EmbeddedKafkaCluster(this);
        }
    }
}
