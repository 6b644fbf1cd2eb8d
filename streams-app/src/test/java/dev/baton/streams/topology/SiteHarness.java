package dev.baton.streams.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.processor.DeadLetterProcessingHandler;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.processor.QueueDirectory;
import dev.baton.streams.processor.InputPartitions;
import dev.baton.streams.processor.QueueService;
import dev.baton.streams.processor.EventSerdes;
import dev.baton.streams.processor.SiteMetrics;
import dev.baton.streams.processor.SiteProcessorSupplier;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/** The real topology under TopologyTestDriver, with helpers that speak Baton's events. */
public final class SiteHarness implements AutoCloseable {

    public static final String QUEUE = "payments";
    public static final String CLIENT = "client-a";

    public final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    public final EventSerdes serdes;
    private final TopologyTestDriver driver;
    private final Path stateDir;
    private final TestInputTopic<byte[], byte[]> dispatch;
    private final TestInputTopic<byte[], byte[]> workerEvents;
    private final TestOutputTopic<byte[], byte[]> tasks;
    private final TestOutputTopic<byte[], byte[]> results;
    private final TestOutputTopic<byte[], byte[]> history;
    private final TestOutputTopic<byte[], byte[]> control;
    private final TestOutputTopic<byte[], byte[]> dlq;
    private final TestOutputTopic<byte[], byte[]> workerEventsOut;
    private final TestInputTopic<byte[], byte[]> workers;
    private long wallClock = START_MILLIS;
    public static final long START_MILLIS = 1_000_000L;
    static final long TIMER_RESOLUTION_MS = 100L;
    public final List<HistoryEvent> historySeen = new ArrayList<>();
    private final Set<String> deletedTopics = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public SiteHarness() {
        this(3);
    }

    public SiteHarness(int transportLossBudget) {
        this(transportLossBudget, UnaryOperator.identity());
    }

    /** {@code registry} may wrap the harness's registry, to make it fail, say. */
    public SiteHarness(int transportLossBudget, UnaryOperator<SchemaRegistry> registry) {
        this(transportLossBudget, registry.apply(SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of())), InputPartitions.fixed(1));
    }

    /**
     * The driver reads one partition, 0; a count above 1 makes the app expect some keys elsewhere,
     * as if a client with another partitioner had put them on partition 0.
     */
    public static SiteHarness withInputPartitions(int count) {
        return new SiteHarness(3, SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()), InputPartitions.fixed(count));
    }

    /** At-least-once, as the streams app runs it: no record cache over the sites store, tokens derived from a key. */
    public static SiteHarness atLeastOnce() {
        return new SiteHarness(3, SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()), InputPartitions.fixed(1), true);
    }

    /** A token key of the length the streams app's generated ones have (32 bytes). */
    private static byte[] tokenKey() {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        return key;
    }

    private SiteHarness(int transportLossBudget, SchemaRegistry registry, InputPartitions inputPartitions) {
        this(transportLossBudget, registry, inputPartitions, false);
    }

    private SiteHarness(int transportLossBudget, SchemaRegistry registry, InputPartitions inputPartitions, boolean atLeastOnce) {
        serdes = EventSerdes.of(registry);
        SiteProcessorSupplier supplier = new SiteProcessorSupplier(new SiteProcessorSupplier.Settings(serdes, new SiteMetrics(meters),
                topic -> declared(topic) && !deletedTopics.contains(topic), new QueueService(meters), 15_000L, new RetryPolicy(1_000L, 2.0, 10_000L, 3, List.of()),
                30_000L, 60_000L, TIMER_RESOLUTION_MS, 1024, transportLossBudget,
                QueueTimeouts.from(Map.of("queue.mail.schedule.to.start.ms", "1000")), inputPartitions, atLeastOnce, !atLeastOnce,
                atLeastOnce ? tokenKey() : null));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "baton-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, atLeastOnce ? StreamsConfig.AT_LEAST_ONCE : StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingHandler.class);
        props.put("schema.registry.url", "mem://" + UUID.randomUUID());
        try {
            stateDir = Files.createTempDirectory("baton-ttd");
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        driver = new TopologyTestDriver(BatonTopology.build(supplier, serdes.workerStatus()), props, Instant.ofEpochMilli(START_MILLIS));
        ByteArraySerializer ser = new ByteArraySerializer();
        ByteArrayDeserializer de = new ByteArrayDeserializer();
        dispatch = driver.createInputTopic(BatonTopics.DISPATCH, ser, ser);
        workerEvents = driver.createInputTopic(BatonTopics.WORKER_EVENTS, ser, ser);
        tasks = driver.createOutputTopic(BatonTopics.tasks(QUEUE), de, de);
        results = driver.createOutputTopic(BatonTopics.RESULTS, de, de);
        history = driver.createOutputTopic(BatonTopics.HISTORY, de, de);
        control = driver.createOutputTopic(BatonTopics.WORKER_CONTROL, de, de);
        dlq = driver.createOutputTopic(BatonTopics.DLQ, de, de);
        workerEventsOut = driver.createOutputTopic(BatonTopics.WORKER_EVENTS, de, de);
        workers = driver.createInputTopic(BatonTopics.WORKERS, ser, ser);
    }

    /** Registers (or refreshes) a worker in the census, as a worker process would. */
    public void registerWorker(String workerId, boolean draining, String... queues) {
        registerWorker(workerId, draining, List.of(), queues);
    }

    /** Registers a worker carrying node labels. */
    public void registerWorker(String workerId, boolean draining, List<String> nodeLabels, String... queues) {
        WorkerStatus status = WorkerStatus.newBuilder().setWorkerId(workerId)
                .setQueues(List.of(queues)).setNodeLabels(nodeLabels).setCapacity(4).setInFlight(0).setDraining(draining)
                .setStartedAtMillis(wallClock).setLastSeenMillis(wallClock).build();
        workers.pipeInput(workerId.getBytes(StandardCharsets.UTF_8), serdes.workerStatus().encode(BatonTopics.WORKERS, status));
    }

    /** Raw bytes on {@code baton.workers}, as any worker (or impostor) may write them. */
    public void pipeWorkers(String key, byte[] value) {
        workers.pipeInput(key.getBytes(StandardCharsets.UTF_8), value);
    }

    /** A clock tick on worker-events, as the app writes them (or a worker could forge one). */
    public void pipeClockTick(long atMillis) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(TopologyNames.CLOCK_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(atMillis).array());
        workerEvents.pipeInput(new TestRecord<>(ByteBuffer.allocate(Integer.BYTES).putInt(0).array(), null, headers, wallClock));
    }

    /** A worker's clean-exit tombstone. */
    /** The operator deletes the queue's task topic: from now on the app finds the queue undeclared. */
    public void deleteQueue(String queue) {
        deletedTopics.add(BatonTopics.tasks(queue));
    }

    public void withdrawWorker(String workerId) {
        workers.pipeInput(workerId.getBytes(StandardCharsets.UTF_8), (byte[]) null);
    }

    /**
     * Declared task topics: queues payments and mail, and node n1 of payments. The queue "explode"
     * makes the processor throw, standing in for a bug.
     */
    private static boolean declared(String taskTopic) {
        if (BatonTopics.tasks("explode").equals(taskTopic)) {
            throw new IllegalStateException("boom: a processor bug");
        }
        return Set.of(BatonTopics.tasks(QUEUE), BatonTopics.tasks("mail"), BatonTopics.tasks(QUEUE, "n1")).contains(taskTopic);
    }

    public static SiteKey site(String activityId) {
        return new SiteKey("ns", "wf-1", activityId);
    }

    public static DispatchCommand.Builder request(SiteKey site, int attempt, String requestId) {
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(site.toRef()).setRequestId(requestId)
                .setReplyKey(CLIENT).setAttempt(attempt).setRunId("run-1").setIdempotencyKey("idem-" + site.activityId())
                .setQueue(QUEUE).setActivityType("charge").setInput(payload("in-" + site.activityId()))
                .setRequestedAtMillis(0L);
    }

    public static Payload payload(String text) {
        return new Payload(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), "text/plain");
    }

    public static RetryPolicy retries(int maxAttempts, long initialMs) {
        return new RetryPolicy(initialMs, 2.0, 60_000L, maxAttempts, List.of());
    }

    public static Timeouts timeouts(Long scheduleToStart, Long startToClose, Long scheduleToClose, Long heartbeat) {
        return new Timeouts(scheduleToStart, startToClose, scheduleToClose, heartbeat);
    }

    public void send(DispatchCommand cmd) {
        dispatch.pipeInput(SiteKey.of(cmd.getSite()).toBytes(), serdes.dispatch().encode(BatonTopics.DISPATCH, cmd), wallClock);
    }

    public void cancel(SiteKey site) {
        send(DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(site.toRef()).setRequestId("cancel-" + site.activityId())
                .setReplyKey(CLIENT).setAttempt(1).setRequestedAtMillis(0L).build());
    }

    public void report(ActivityTask task, WorkerEventKind kind, String workerId) {
        report(task, kind, workerId, task.getToken(), null, null);
    }

    public void report(ActivityTask task, WorkerEventKind kind, String workerId, String token, Payload output, String reason) {
        WorkerEvent event = WorkerEvent.newBuilder().setKind(kind).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(token).setWorkerId(workerId).setOutput(output).setReason(reason)
                .setAtMillis(0L).build();
        pipeWorkerEvent(SiteKey.of(task.getSite()).toBytes(), serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, event));
    }

    /** A worker event as the test built it. */
    public void report(WorkerEvent event) {
        pipeWorkerEvent(SiteKey.of(event.getSite()).toBytes(), serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, event));
    }

    public void complete(ActivityTask task, String workerId, String output) {
        report(task, WorkerEventKind.COMPLETED, workerId, task.getToken(), payload(output), null);
    }

    public void fail(ActivityTask task, String workerId, String reason) {
        report(task, WorkerEventKind.FAILED, workerId, task.getToken(), null, reason);
    }

    public void pipeDispatch(byte[] key, byte[] value) {
        dispatch.pipeInput(key, value, wallClock);
    }

    public void pipeWorkerEvent(byte[] key, byte[] value) {
        workerEvents.pipeInput(key, value, wallClock);
    }

    /** Moves the wall clock in steps of the timer resolution, so the punctuator ticks as it would live. */
    public void advance(Duration d) {
        for (long left = d.toMillis(); left > 0; left -= TIMER_RESOLUTION_MS) {
            long step = Math.min(left, TIMER_RESOLUTION_MS);
            wallClock += step;
            driver.advanceWallClockTime(Duration.ofMillis(step));
        }
    }

    public long wallClock() {
        return wallClock;
    }

    /** Stops read by {@link #tasks()}, not yet taken by {@link #taskStops()}. */
    private final List<ActivityTask> stops = new java.util.ArrayList<>();

    /** Tasks published to the queue's topic since the last call (stops are kept apart: {@link #taskStops()}). */
    public List<ActivityTask> tasks() {
        List<ActivityTask> all = tasks.readValuesToList().stream().map(v -> serdes.task().decode(BatonTopics.tasks(QUEUE), v)).toList();
        stops.addAll(all.stream().filter(t -> t.getStopTokenFingerprint() != null).toList());
        return all.stream().filter(t -> t.getStopTokenFingerprint() == null).toList();
    }

    /** Stops published to the queue's topic (for tasks revoked before a lease) since the last call of this or {@link #tasks()}. */
    public List<ActivityTask> taskStops() {
        tasks();
        List<ActivityTask> read = List.copyOf(stops);
        stops.clear();
        return read;
    }

    /** Tasks published to {@code topic} since the last call (a node's topic, say). */
    public List<ActivityTask> tasks(String topic) {
        return driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer()).readValuesToList().stream()
                .map(v -> serdes.task().decode(topic, v)).filter(t -> t.getStopTokenFingerprint() == null).toList();
    }

    public List<Outcome> results() {
        return results.readRecordsToList().stream().map(r -> serdes.outcome().decode(BatonTopics.RESULTS, r.value())).toList();
    }

    public List<WorkerControl> controls() {
        return control.readValuesToList().stream().map(v -> serdes.control().decode(BatonTopics.WORKER_CONTROL, v)).toList();
    }

    /** Clock ticks the topology wrote to worker-events since the last call (the driver also reads them back). */
    public List<Long> clockTicks() {
        return workerEventsOut.readRecordsToList().stream()
                .map(r -> r.headers().lastHeader(TopologyNames.CLOCK_HEADER))
                .filter(Objects::nonNull)
                .map(h -> ByteBuffer.wrap(h.value()).getLong()).toList();
    }

    public List<DeadLetter> deadLetters() {
        return dlq.readValuesToList().stream().map(v -> serdes.deadLetter().decode(BatonTopics.DLQ, v)).toList();
    }

    /** History since the last call; also kept in {@link #historySeen}. */
    public List<HistoryEvent> history() {
        List<HistoryEvent> events = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : history.readRecordsToList()) {
            events.add(serdes.history().decode(BatonTopics.HISTORY, r.value()));
        }
        historySeen.addAll(events);
        return events;
    }

    public List<HistoryKind> historyKinds() {
        return history().stream().map(HistoryEvent::getKind).toList();
    }

    /** The site's row in the {@code sites} store, if any. */
    public Optional<SiteState> siteState(SiteKey site) {
        KeyValueStore<Bytes, byte[]> store =
                driver.getKeyValueStore(TopologyNames.SITES_STORE);
        byte[] bytes = store.get(Bytes.wrap(site.toBytes()));
        return Optional.ofNullable(bytes).map(b -> serdes.siteState().decode(TopologyNames.SITES_SUBJECT_TOPIC, b));
    }

    public double counter(String name) {
        return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Override
    public void close() {
        driver.close();
        // The driver empties the state dir but leaves it; a test run made over a thousand of them.
        try (Stream<Path> paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
