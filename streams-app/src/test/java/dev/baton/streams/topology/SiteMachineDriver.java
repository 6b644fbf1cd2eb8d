package dev.baton.streams.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.Outcome;
import dev.baton.events.RetryPolicy;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.processor.DeadLetterProcessingHandler;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.processor.InputPartitions;
import dev.baton.streams.processor.QueueService;
import dev.baton.streams.processor.EventSerdes;
import dev.baton.streams.processor.SiteMetrics;
import dev.baton.streams.processor.SiteProcessorSupplier;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.InMemoryKeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The real topology under TopologyTestDriver, for the model-based test, with commits and crashes of
 * the stream task made explicit, under either processing guarantee.
 *
 * <p>The driver itself commits after every record; this class keeps its own commit points instead.
 * What the topology writes between two {@link #commit()}s is held back (readers of an exactly-once
 * output see nothing of an open transaction), and so are the changelog records of the {@code sites}
 * store. {@link #crash()} drops all of it, builds a new driver whose {@code sites} store holds the
 * rows of the changelog as of the last commit (what a restore would load), reloads the worker
 * registrations into the global store, and feeds the input records read since the last commit
 * again. The stores are in memory (the topology is the production one; RocksDB is covered by the
 * other tests): a step costs no disk flush, and a crash no RocksDB open.
 *
 * <p>At-least-once ({@link #atLeastOnce}) changes what a crash leaves: the outputs written since the
 * last commit may or may not have been delivered (each is delivered or lost, at random), and the
 * {@code sites} store is restored from a changelog that may hold any of a row's writes since the
 * commit, or none (chosen per row, at random): the state may be ahead of the committed input. The
 * input since the last commit is then read again at the same offsets, including the deadline records
 * the task wrote to itself and read.
 */
final class SiteMachineDriver implements AutoCloseable {

    static final String APP_ID = "baton-model";
    static final long START_MILLIS = 1_000_000L;
    static final long TIMER_RESOLUTION_MS = 100L;
    static final long HEARTBEAT_WINDOW_MS = 2_000L;
    static final long DEDUPE_WINDOW_MS = 6_000L;
    /** At-least-once: the longest a timer step goes uncommitted (Kafka Streams' commit.interval.ms; far below the dedupe window). */
    static final long COMMIT_INTERVAL_MS = 1_000L;
    static final long WORKER_STALE_MS = 4_000L;
    static final int TRANSPORT_LOSS_BUDGET = 2;
    static final RetryPolicy DEFAULT_RETRY = new RetryPolicy(300L, 2.0, 1_000L, 3, List.of());
    static final String EXPLODING_QUEUE = "explode";
    /** Declared queues and, per queue, its declared nodes. */
    static final Map<String, List<String>> DECLARED = Map.of("payments", List.of("n1", "n2"), "mail", List.of());
    static final Map<String, String> QUEUE_DEFAULTS = Map.of("queue.mail.schedule.to.start.ms", "1500");
    private static final String CHANGELOG = APP_ID + "-" + TopologyNames.SITES_STORE + "-changelog";
    /** One registry for every driver: a mem:// registry lives as long as the JVM, and millions of steps build thousands of drivers. */
    private static final String REGISTRY = "mem://baton-model-check";

    /** What became visible at a commit. */
    record Visible(List<ActivityTask> tasks, List<Outcome> outcomes, List<WorkerControl> controls, List<DeadLetter> deadLetters) {
        /** Tasks only: a task stop (for a generation revoked before any lease) is a worker's hint, which the model does not track. */
        Visible {
            tasks = tasks.stream().filter(t -> t.getStopTokenFingerprint() == null).toList();
        }
    }

    /** An input record; read again after a crash it keeps its timestamp, as a record in a topic does. */
    private record Input(String topic, byte[] key, byte[] value, Headers headers, boolean failsStep, long timestamp) {
    }

    /** The token key of the at-least-once driver (a fixed test key: the tests are not about its secrecy). */
    static final byte[] TOKEN_KEY = "baton-model-check-token-key".getBytes(StandardCharsets.UTF_8);

    final EventSerdes serdes;
    final boolean atLeastOnce;
    private final FailingMeters meters = new FailingMeters();
    private final Path stateDir;
    private final Map<Bytes, byte[]> committedRows = new LinkedHashMap<>();
    private final List<Input> uncommitted = new ArrayList<>();
    private final Map<Bytes, byte[]> registrations = new LinkedHashMap<>();
    private final List<TestRecord<byte[], byte[]>> heldTasks = new ArrayList<>();
    private final List<TestRecord<byte[], byte[]>> heldOutcomes = new ArrayList<>();
    private final List<TestRecord<byte[], byte[]>> heldControls = new ArrayList<>();
    private final List<TestRecord<byte[], byte[]>> heldDeadLetters = new ArrayList<>();
    private final List<TestRecord<byte[], byte[]>> heldChangelog = new ArrayList<>();
    /** Per input topic, the offset the next record gets, as of the last commit: where reading resumes after a crash. */
    private final Map<TopicPartition, Long> committedOffsets = new HashMap<>();
    /** The app's max.payload.bytes; a test may change it for the next restart, as an operator restarting it would. */
    private int maxPayloadBytes = 1024;
    private long wallClock = START_MILLIS;
    private long committedAt = START_MILLIS;
    private long steps;
    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> dispatch;
    private TestInputTopic<byte[], byte[]> workerEvents;
    private TestInputTopic<byte[], byte[]> workers;
    private List<TestOutputTopic<byte[], byte[]>> taskTopics;
    private TestOutputTopic<byte[], byte[]> results;
    private TestOutputTopic<byte[], byte[]> control;
    private TestOutputTopic<byte[], byte[]> dlq;
    private TestOutputTopic<byte[], byte[]> changelog;
    private TestOutputTopic<byte[], byte[]> ownWorkerEvents;

    SiteMachineDriver() {
        this(false);
    }

    SiteMachineDriver(boolean atLeastOnce) {
        this.atLeastOnce = atLeastOnce;
        serdes = EventSerdes.of(SchemaRegistry.forUrl(REGISTRY, Map.of()));
        try {
            stateDir = Files.createTempDirectory("baton-model");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        build();
    }

    long wallClock() {
        return wallClock;
    }

    /** The app restarted after the next crash runs with this {@code max.payload.bytes}. */
    void restartWithMaxPayloadBytes(int bytes) {
        maxPayloadBytes = bytes;
    }

    /** Input records and timer steps so far. */
    long steps() {
        return steps;
    }

    void send(DispatchCommand cmd) {
        pipe(new Input(BatonTopics.DISPATCH, SiteKey.of(cmd.getSite()).toBytes(), serdes.dispatch().encode(BatonTopics.DISPATCH, cmd), null,
                false, wallClock));
    }

    /** A worker's report; with {@code failsStep} deciding it throws (the first metric it counts fails, as a bug would). */
    void report(WorkerEvent event, boolean failsStep) {
        pipe(new Input(BatonTopics.WORKER_EVENTS, SiteKey.of(event.getSite()).toBytes(),
                serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, event), null, failsStep, wallClock));
    }

    /** A value-less record with these headers on worker-events, keyed as the app keys its own (a partition number): a forger's. */
    void forge(int partition, org.apache.kafka.common.header.Headers headers) {
        pipe(new Input(BatonTopics.WORKER_EVENTS, java.nio.ByteBuffer.allocate(Integer.BYTES).putInt(partition).array(), null, headers,
                false, wallClock));
    }

    /** A worker's registration (or, with null, its clean-exit tombstone). Outside the streams app's transactions: commit first. */
    void register(String workerId, WorkerStatus status) {
        requireCommitted("a registration");
        byte[] key = workerId.getBytes(StandardCharsets.UTF_8);
        byte[] value = status == null ? null : serdes.workerStatus().encode(BatonTopics.WORKERS, status);
        registrations.put(Bytes.wrap(key), value);
        workers.pipeInput(key, value, wallClock);
    }

    /**
     * Moves the wall clock one timer resolution: one punctuation. Under exactly-once its outputs
     * commit with it; under at-least-once they wait for the next commit (or crash), like any step's.
     */
    Visible advance() {
        if (!atLeastOnce) {
            requireCommitted("a timer step");
        }
        wallClock += TIMER_RESOLUTION_MS;
        driver.advanceWallClockTime(Duration.ofMillis(TIMER_RESOLUTION_MS));
        steps++;
        hold();
        if (atLeastOnce && wallClock - committedAt < COMMIT_INTERVAL_MS) {
            return new Visible(List.of(), List.of(), List.of(), List.of());
        }
        // Kafka Streams commits at least every commit.interval.ms; the dedupe window is far longer, so
        // a row never expires before the outputs of its resolution were flushed by a commit.
        return commit();
    }

    /** Commits what the inputs since the last commit did: it becomes visible, and the restore point moves. */
    Visible commit() {
        hold();
        for (TestRecord<byte[], byte[]> r : heldChangelog) {
            if (r.value() == null) {
                committedRows.remove(Bytes.wrap(r.key()));
            } else {
                committedRows.put(Bytes.wrap(r.key()), r.value());
            }
        }
        Visible visible = new Visible(
                heldTasks.stream().map(r -> serdes.task().decode(BatonTopics.TASKS_PREFIX, r.value())).toList(),
                heldOutcomes.stream().map(r -> serdes.outcome().decode(BatonTopics.RESULTS, r.value())).toList(),
                heldControls.stream().map(r -> serdes.control().decode(BatonTopics.WORKER_CONTROL, r.value())).toList(),
                heldDeadLetters.stream().map(r -> serdes.deadLetter().decode(BatonTopics.DLQ, r.value())).toList());
        clearHeld();
        uncommitted.clear();
        inputOffsets().forEach((tp, next) -> committedOffsets.put(tp, next.get()));
        committedAt = wallClock;
        return visible;
    }

    /**
     * The stream task dies before committing: what it wrote since the last commit is aborted, its
     * state is restored from the changelog, and it reads its input again from the last commit.
     */
    void crash() {
        if (atLeastOnce) {
            throw new IllegalStateException("an at-least-once crash needs its random choices: crash(Random)");
        }
        driver.close();
        clearHeld();
        restart();
    }

    /**
     * An at-least-once crash: each output since the last commit was delivered or lost (chosen by
     * {@code chance}); each row of the {@code sites} store is restored to one of its writes since the
     * commit, or to its committed value; then the input since the commit is read again. Returns what
     * was delivered.
     */
    Visible crash(Random chance) {
        if (!atLeastOnce) {
            throw new IllegalStateException("an exactly-once crash delivers nothing: crash()");
        }
        hold();
        driver.close();
        Visible delivered = new Visible(
                deliveredOf(heldTasks, chance).map(r -> serdes.task().decode(BatonTopics.TASKS_PREFIX, r.value())).toList(),
                deliveredOf(heldOutcomes, chance).map(r -> serdes.outcome().decode(BatonTopics.RESULTS, r.value())).toList(),
                deliveredOf(heldControls, chance).map(r -> serdes.control().decode(BatonTopics.WORKER_CONTROL, r.value())).toList(),
                deliveredOf(heldDeadLetters, chance).map(r -> serdes.deadLetter().decode(BatonTopics.DLQ, r.value())).toList());
        Map<Bytes, List<byte[]>> writes = new LinkedHashMap<>();
        for (TestRecord<byte[], byte[]> r : heldChangelog) {
            writes.computeIfAbsent(Bytes.wrap(r.key()), k -> new ArrayList<>()).add(r.value());
        }
        writes.forEach((key, versions) -> {
            int pick = chance.nextInt(versions.size() + 1) - 1; // -1: none of them reached the changelog
            if (pick >= 0) {
                byte[] row = versions.get(pick);
                if (row == null) {
                    committedRows.remove(key);
                } else {
                    committedRows.put(key, row);
                }
            }
        });
        clearHeld();
        restart();
        return delivered;
    }

    private static Stream<TestRecord<byte[], byte[]>> deliveredOf(List<TestRecord<byte[], byte[]>> held, Random chance) {
        return held.stream().filter(r -> chance.nextBoolean());
    }

    /** A new task: state restored (committedRows), reading from the committed offsets, the input since then read again. */
    private void restart() {
        build();
        inputOffsets().forEach((tp, next) -> next.set(committedOffsets.getOrDefault(tp, 0L)));
        registrations.forEach((k, v) -> workers.pipeInput(k.get(), v, wallClock));
        List<Input> again = List.copyOf(uncommitted);
        uncommitted.clear();
        again.forEach(this::pipe);
    }

    /**
     * TopologyTestDriver's offset counters of the input partitions. A new driver would start them at
     * 0, but rows restored from the changelog remember the offsets they were written at (a record at
     * or below them counts as applied), so a restart must resume them where the commit left them.
     * Reflection on a test-utils internal: there is no public way to set where a test input resumes.
     */
    @SuppressWarnings("unchecked")
    private Map<TopicPartition, AtomicLong> inputOffsetCounters() {
        try {
            Field f = TopologyTestDriver.class.getDeclaredField("offsetsByTopicOrPatternPartition");
            f.setAccessible(true);
            return (Map<TopicPartition, AtomicLong>) f.get(driver);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("TopologyTestDriver changed: cannot resume input offsets after a crash", e);
        }
    }

    private Map<TopicPartition, AtomicLong> inputOffsets() {
        Map<TopicPartition, AtomicLong> all = inputOffsetCounters();
        Map<TopicPartition, AtomicLong> inputs = new HashMap<>();
        all.forEach((tp, next) -> {
            if (tp.topic().equals(BatonTopics.DISPATCH) || tp.topic().equals(BatonTopics.WORKER_EVENTS)) {
                inputs.put(tp, next);
            }
        });
        return inputs;
    }

    /** The site's row in the {@code sites} store as the task sees it now, for failure messages. */
    String row(String site) {
        KeyValueStore<Bytes, byte[]> store = driver.getKeyValueStore(TopologyNames.SITES_STORE);
        byte[] bytes = store.get(Bytes.wrap(SiteMachineWorld.siteKey(site).toBytes()));
        return bytes == null ? "no row" : serdes.siteState().decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes).toString();
    }

    /** The token the site's row holds now (its live generation's), or null. */
    String liveToken(String site) {
        KeyValueStore<Bytes, byte[]> store = driver.getKeyValueStore(TopologyNames.SITES_STORE);
        byte[] bytes = store.get(Bytes.wrap(SiteMachineWorld.siteKey(site).toBytes()));
        return bytes == null ? null : serdes.siteState().decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes).getToken();
    }

    double counted(String meter) {
        return meters.find(meter).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Override
    public void close() {
        driver.close();
        try (Stream<Path> paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void pipe(Input in) {
        uncommitted.add(in);
        steps++;
        TestInputTopic<byte[], byte[]> topic = in.topic().equals(BatonTopics.DISPATCH) ? dispatch : workerEvents;
        meters.failNextCount(in.failsStep());
        try {
            topic.pipeInput(new TestRecord<>(in.key(), in.value(), in.headers(), in.timestamp()));
        } finally {
            meters.failNextCount(false);
        }
        hold();
    }

    private void requireCommitted(String what) {
        if (!uncommitted.isEmpty()) {
            throw new IllegalStateException(what + " needs the inputs before it committed; commit() first");
        }
    }

    private void hold() {
        taskTopics.forEach(t -> heldTasks.addAll(t.readRecordsToList()));
        heldOutcomes.addAll(results.readRecordsToList());
        heldControls.addAll(control.readRecordsToList());
        heldDeadLetters.addAll(dlq.readRecordsToList());
        heldChangelog.addAll(changelog.readRecordsToList());
        // What the task wrote to its own worker-events partition (clock ticks, deadline records) it has
        // read already: under at-least-once it is input to read again after a crash.
        for (TestRecord<byte[], byte[]> own : ownWorkerEvents.readRecordsToList()) {
            if (atLeastOnce) {
                uncommitted.add(new Input(BatonTopics.WORKER_EVENTS, own.key(), own.value(), own.headers(), false, own.timestamp()));
            }
        }
    }

    private void clearHeld() {
        heldTasks.clear();
        heldOutcomes.clear();
        heldControls.clear();
        heldDeadLetters.clear();
        heldChangelog.clear();
    }

    private void build() {
        Map<Bytes, byte[]> restored = new HashMap<>(committedRows);
        SiteProcessorSupplier supplier = new SiteProcessorSupplier(new SiteProcessorSupplier.Settings(serdes, new SiteMetrics(meters),
                SiteMachineDriver::declared, new QueueService(meters), WORKER_STALE_MS, DEFAULT_RETRY, HEARTBEAT_WINDOW_MS, DEDUPE_WINDOW_MS,
                TIMER_RESOLUTION_MS, maxPayloadBytes, TRANSPORT_LOSS_BUDGET, QueueTimeouts.from(QUEUE_DEFAULTS), InputPartitions.fixed(1), atLeastOnce,
                !atLeastOnce, atLeastOnce ? TOKEN_KEY : null),
                name -> name.equals(TopologyNames.SITES_STORE) ? new RestoredStore(name, restored) : Stores.inMemoryKeyValueStore(name));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, atLeastOnce ? StreamsConfig.AT_LEAST_ONCE : StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingHandler.class);
        props.put("schema.registry.url", REGISTRY);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(BatonTopology.build(supplier, serdes.workerStatus()), props, Instant.ofEpochMilli(wallClock));
        ByteArraySerializer ser = new ByteArraySerializer();
        ByteArrayDeserializer de = new ByteArrayDeserializer();
        dispatch = driver.createInputTopic(BatonTopics.DISPATCH, ser, ser);
        workerEvents = driver.createInputTopic(BatonTopics.WORKER_EVENTS, ser, ser);
        workers = driver.createInputTopic(BatonTopics.WORKERS, ser, ser);
        taskTopics = new ArrayList<>();
        DECLARED.forEach((queue, nodes) -> {
            taskTopics.add(driver.createOutputTopic(BatonTopics.tasks(queue), de, de));
            nodes.forEach(node -> taskTopics.add(driver.createOutputTopic(BatonTopics.tasks(queue, node), de, de)));
        });
        results = driver.createOutputTopic(BatonTopics.RESULTS, de, de);
        control = driver.createOutputTopic(BatonTopics.WORKER_CONTROL, de, de);
        dlq = driver.createOutputTopic(BatonTopics.DLQ, de, de);
        changelog = driver.createOutputTopic(CHANGELOG, de, de);
        ownWorkerEvents = driver.createOutputTopic(BatonTopics.WORKER_EVENTS, de, de);
    }

    private static boolean declared(String taskTopic) {
        if (BatonTopics.tasks(EXPLODING_QUEUE).equals(taskTopic)) {
            throw new IllegalStateException("boom: a processor bug");
        }
        for (Map.Entry<String, List<String>> q : DECLARED.entrySet()) {
            if (BatonTopics.tasks(q.getKey()).equals(taskTopic)
                    || q.getValue().stream().anyMatch(n -> BatonTopics.tasks(q.getKey(), n).equals(taskTopic))) {
                return true;
            }
        }
        return false;
    }

    /** The {@code sites} store as a restore from the changelog leaves it: the committed rows, loaded before the processor starts. */
    private record RestoredStore(String name, Map<Bytes, byte[]> rows) implements KeyValueBytesStoreSupplier {

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new InMemoryKeyValueStore(name) {
                @Override
                public void init(StateStoreContext context, StateStore root) {
                    super.init(context, root);
                    List<KeyValue<Bytes, byte[]>> all = new ArrayList<>();
                    rows.forEach((k, v) -> all.add(KeyValue.pair(k, v)));
                    putAll(all);
                }
            };
        }

        @Override
        public String metricsScope() {
            return "in-memory";
        }
    }

    /** Meters whose next count can be made to fail, to make a decision throw half-way as a bug would. */
    private static final class FailingMeters extends SimpleMeterRegistry {

        private final AtomicBoolean failNext = new AtomicBoolean();

        void failNextCount(boolean fail) {
            failNext.set(fail);
        }

        @Override
        protected Counter newCounter(Meter.Id id) {
            Counter real = super.newCounter(id);
            return new Counter() {
                @Override
                public void increment(double amount) {
                    if (failNext.compareAndSet(true, false)) {
                        throw new IllegalStateException("boom: a bug while counting " + id.getName());
                    }
                    real.increment(amount);
                }

                @Override
                public double count() {
                    return real.count();
                }

                @Override
                public Meter.Id getId() {
                    return real.getId();
                }
            };
        }
    }
}
