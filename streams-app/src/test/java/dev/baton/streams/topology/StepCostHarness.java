package dev.baton.streams.topology;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.RetryPolicy;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.processor.EventSerdes;
import dev.baton.streams.processor.InputPartitions;
import dev.baton.streams.processor.QueueService;
import dev.baton.streams.processor.SiteMetrics;
import dev.baton.streams.processor.SiteProcessorSupplier;
import dev.baton.topics.BatonTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * What Baton's site processor costs per activity against a processor with no rules doing the same store and output
 * work (the {@code kafka shape} of {@code bench dispatch}), each called directly under Kafka's
 * {@link MockProcessorContext} with RocksDB stores, in alternating rounds in one JVM: no broker, no Kafka Streams loop,
 * no other thread, so the host's noise moves both alike. Not a test (it asserts nothing and CI does not run it); an
 * instrument for whoever cuts the stream thread's own work (issue 29, docs/decisions.md). Run, after
 * {@code mvn -B -q -o install -DskipTests} and {@code mvn -B -q -o test-compile -pl streams-app}:
 *
 * <pre>
 * java -cp streams-app/target/test-classes:streams-app/target/classes:schemas/target/classes:cli/target/baton.jar:\
 * $HOME/.m2/repository/org/apache/kafka/kafka-streams-test-utils/4.4.0/kafka-streams-test-utils-4.4.0.jar \
 * dev.baton.streams.topology.StepCostHarness
 * </pre>
 *
 * Per activity both take a dispatch and a completion, read and write a row per input, and forward a task, two history
 * records and an outcome; the bare processor's records have the sizes Baton's had. Stores are built without their
 * changelogs (the mock context has no producer), so neither pays the changelog send, which Kafka does alike for both.
 * Only the loops calling {@code process} are timed, by the thread's CPU time: building the inputs and reading the outputs
 * are the client's and the worker's work, and a garbage collection's pause is other threads' CPU.
 */
public final class StepCostHarness {

    private static final int ACTIVITIES_PER_ROUND = 20_000;
    /**
     * Completions follow their dispatches this many activities later by default, as a partition's do in {@code bench
     * dispatch}'s fixed rates (its rows are still in the site store's decoded cache then). In its bursts the completions
     * come tens of thousands of activities later, each row read back from RocksDB and decoded: the second argument, e.g.
     * 20000 (a divisor of {@link #ACTIVITIES_PER_ROUND}), times that path.
     */
    private static final int DEFAULT_BATCH = 500;
    /** Rounds left out of the medians: the JIT compiles most of both paths in them. */
    private static final int WARM_UP_ROUNDS = 4;
    /** This thread's CPU time, not the wall clock: a collection's pause (other threads' work) counts against neither. */
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private StepCostHarness() {
    }

    /** Arguments: the number of rounds (default 12; more for a profile), then the activities between a dispatch and its completion. */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_BATCH;
        if (batch <= 0 || ACTIVITIES_PER_ROUND % batch != 0) {
            throw new IllegalArgumentException("the activities between a dispatch and its completion must divide " + ACTIVITIES_PER_ROUND
                    + ", were " + batch);
        }
        Path stateDir = Files.createTempDirectory("baton-step-cost");
        try {
            Baton baton = new Baton(stateDir.resolve("baton"), batch);
            Bare bare = null;
            List<double[]> measured = new ArrayList<>(); // {baton, bare} of each round after the warm-up
            for (int round = 0; round < rounds; round++) {
                double batonNs = baton.round(round);
                if (bare == null) {
                    bare = new Bare(stateDir.resolve("bare"), baton.sizes, batch);
                    System.out.println("# bytes per record as Baton wrote them: " + baton.sizes);
                }
                double bareNs = bare.round(round);
                System.out.printf("round %2d: baton %6.2f us per activity, bare %6.2f us, baton - bare %6.2f us, baton / bare %.2f%n", round,
                        batonNs / 1e3, bareNs / 1e3, (batonNs - bareNs) / 1e3, batonNs / bareNs);
                if (round >= WARM_UP_ROUNDS) {
                    measured.add(new double[] {batonNs, bareNs});
                }
            }
            if (!measured.isEmpty()) {
                System.out.printf("median of rounds %d-%d: baton %.2f us, bare %.2f us, baton - bare %.2f us, baton / bare %.2f%n", WARM_UP_ROUNDS,
                        rounds - 1, median(measured, m -> m[0]) / 1e3, median(measured, m -> m[1]) / 1e3,
                        median(measured, m -> m[0] - m[1]) / 1e3, median(measured, m -> m[0] / m[1]));
            }
        } finally {
            try (Stream<Path> paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
            }
        }
    }

    private static double median(List<double[]> rounds, java.util.function.ToDoubleFunction<double[]> figure) {
        double[] sorted = rounds.stream().mapToDouble(figure).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    /** Bytes per record of each kind, as Baton wrote them. */
    record Sizes(int dispatch, int event, int row, int task, int history, int outcome) {
    }

    private static MockProcessorContext<byte[], byte[]> context(Path stateDir, String app) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        MockProcessorContext<byte[], byte[]> context = new MockProcessorContext<>(p, new TaskId(0, 0), stateDir.toFile());
        context.setCurrentSystemTimeMs(System.currentTimeMillis());
        context.setCurrentStreamTimeMs(System.currentTimeMillis());
        return context;
    }

    private static KeyValueStore<Bytes, byte[]> store(MockProcessorContext<byte[], byte[]> context, String name) {
        KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled().withCachingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        return store;
    }

    /** Baton's site processor at-least-once, with one live worker serving the queue. */
    private static final class Baton {
        private final MockProcessorContext<byte[], byte[]> context;
        private final Processor<byte[], byte[], byte[], byte[]> processor;
        private final EventSerdes serdes = EventSerdes.of(SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()));
        private final int batch;
        private long dispatchOffset;
        private long eventsOffset;
        Sizes sizes;

        Baton(Path stateDir, int batch) {
            this.batch = batch;
            context = context(stateDir, "baton");
            store(context, TopologyNames.SITES_STORE);
            store(context, TopologyNames.DEADLINES_STORE);
            KeyValueStore<Bytes, byte[]> workers = store(context, TopologyNames.WORKERS_STORE);
            long now = System.currentTimeMillis();
            workers.put(Bytes.wrap("w-1".getBytes()), serdes.workerStatus().encode(BatonTopics.WORKERS, WorkerStatus.newBuilder().setWorkerId("w-1")
                    .setQueues(List.of(SiteHarness.QUEUE)).setNodeLabels(List.of()).setCapacity(1024).setInFlight(0).setDraining(false)
                    .setStartedAtMillis(now).setLastSeenMillis(now + 3_600_000L).build()));
            byte[] tokenKey = new byte[32];
            new java.security.SecureRandom().nextBytes(tokenKey);
            SiteProcessorSupplier supplier = new SiteProcessorSupplier(new SiteProcessorSupplier.Settings(serdes, new SiteMetrics(new SimpleMeterRegistry()),
                    topic -> true, new QueueService(new SimpleMeterRegistry()), 15_000L, new RetryPolicy(1_000L, 2.0, 10_000L, 3, List.of()),
                    30_000L, 3_600_000L, 100L, 1_048_576, 3, QueueTimeouts.from(Map.of()), InputPartitions.fixed(1), true, false, tokenKey));
            processor = supplier.get();
            processor.init(context);
        }

        /** Nanoseconds of {@code process} per activity. */
        double round(int round) {
            long timed = 0;
            for (int from = 0; from < ACTIVITIES_PER_ROUND; from += batch) {
                timed += batch(round, from);
            }
            return (double) timed / ACTIVITIES_PER_ROUND;
        }

        /** Dispatches {@code batch} activities, then completes them; nanoseconds in {@code process}. */
        private long batch(int round, int from) {
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> dispatches = new ArrayList<>();
            for (int i = from; i < from + batch; i++) {
                SiteKey site = new SiteKey("bench", "w" + round + "-" + i, "1");
                DispatchCommand cmd = SiteHarness.request(site, 1, UUID.randomUUID().toString()).setInput(SiteHarness.payload("x".repeat(100)))
                        .setReplyKey("bench-client").build();
                keys.add(site.toBytes());
                dispatches.add(serdes.dispatch().encode(BatonTopics.DISPATCH, cmd));
            }
            context.resetForwards();
            long t0 = CPU.getCurrentThreadCpuTime();
            for (int i = 0; i < batch; i++) {
                context.setRecordMetadata(BatonTopics.DISPATCH, 0, dispatchOffset++);
                processor.process(new Record<>(keys.get(i), dispatches.get(i), 0L));
            }
            long timed = CPU.getCurrentThreadCpuTime() - t0;
            List<byte[]> tasks = sent(TopologyNames.TASKS_SINK);
            List<ActivityTask> decoded = tasks.stream().map(v -> serdes.task().decode(BatonTopics.tasks(SiteHarness.QUEUE), v)).toList();
            int history = sent(TopologyNames.HISTORY_SINK).size();
            List<byte[]> completions = new ArrayList<>();
            for (ActivityTask task : decoded) {
                completions.add(serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED)
                        .setSite(task.getSite()).setAttempt(task.getAttempt()).setGeneration(task.getGeneration()).setToken(task.getToken())
                        .setWorkerId("w-1").setOutput(task.getInput()).setAtMillis(0L).build()));
            }
            context.resetForwards();
            List<byte[]> completionKeys = decoded.stream().map(t -> SiteKey.of(t.getSite()).toBytes()).toList();
            long t1 = CPU.getCurrentThreadCpuTime();
            for (int i = 0; i < batch; i++) {
                context.setRecordMetadata(BatonTopics.WORKER_EVENTS, 0, eventsOffset++);
                processor.process(new Record<>(completionKeys.get(i), completions.get(i), 0L));
            }
            timed += CPU.getCurrentThreadCpuTime() - t1;
            List<byte[]> outcomes = sent(TopologyNames.RESULTS_SINK);
            List<byte[]> resolved = sent(TopologyNames.HISTORY_SINK);
            if (tasks.size() != batch || outcomes.size() != batch || history + resolved.size() != 2 * batch) {
                throw new IllegalStateException("expected a task, an outcome and two history events per activity, got " + tasks.size() + ", "
                        + outcomes.size() + " and " + (history + resolved.size()) + " (dead letters: " + sent(TopologyNames.DLQ_SINK).size() + ")");
            }
            if (sizes == null) {
                KeyValueStore<Bytes, byte[]> sites = context.getStateStore(TopologyNames.SITES_STORE);
                sizes = new Sizes(dispatches.get(0).length, completions.get(0).length, sites.get(Bytes.wrap(keys.get(0))).length,
                        tasks.get(0).length, resolved.get(0).length, outcomes.get(0).length);
            }
            context.resetForwards();
            return timed;
        }

        private List<byte[]> sent(String child) {
            return context.forwarded().stream().filter(f -> f.childName().map(child::equals).orElse(false)).map(f -> (byte[]) f.record().value()).toList();
        }
    }

    /** The kafka shape's processor: reads and writes a row per input, forwards a task or an outcome and a history record. */
    private static final class Bare {
        private final MockProcessorContext<byte[], byte[]> context;
        private final Processor<byte[], byte[], byte[], byte[]> processor;
        private final Sizes sizes;
        private final int batch;
        private long offset;

        Bare(Path stateDir, Sizes sizes, int batch) {
            this.sizes = sizes;
            this.batch = batch;
            context = context(stateDir, "bare");
            store(context, "rows");
            processor = new Rows(sizes);
            processor.init(context);
        }

        double round(int round) {
            byte[] request = new byte[sizes.dispatch()];
            byte[] completion = new byte[sizes.event()];
            long timed = 0;
            for (int from = 0; from < ACTIVITIES_PER_ROUND; from += batch) {
                List<byte[]> keys = new ArrayList<>();
                for (int i = from; i < from + batch; i++) {
                    keys.add(new SiteKey("bench", "w" + round + "-" + i, "1").toBytes());
                }
                for (String topic : List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS)) {
                    byte[] value = topic.equals(BatonTopics.DISPATCH) ? request : completion;
                    long t0 = CPU.getCurrentThreadCpuTime();
                    for (byte[] key : keys) {
                        context.setRecordMetadata(topic, 0, offset++);
                        processor.process(new Record<>(key, value, 0L));
                    }
                    timed += CPU.getCurrentThreadCpuTime() - t0;
                    context.resetForwards();
                }
            }
            return (double) timed / ACTIVITIES_PER_ROUND;
        }
    }

    private static final class Rows implements Processor<byte[], byte[], byte[], byte[]> {
        private final Sizes sizes;
        private ProcessorContext<byte[], byte[]> context;
        private KeyValueStore<Bytes, byte[]> rows;

        Rows(Sizes sizes) {
            this.sizes = sizes;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            this.rows = context.getStateStore("rows");
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            boolean dispatch = BatonTopics.DISPATCH.equals(context.recordMetadata().orElseThrow().topic());
            Bytes key = Bytes.wrap(record.key());
            byte[] row = rows.get(key);
            rows.put(key, row == null ? Arrays.copyOf(record.value(), sizes.row()) : row.clone());
            context.forward(record.withValue(new byte[dispatch ? sizes.task() : sizes.outcome()]), dispatch ? "tasks" : "results");
            context.forward(record.withValue(new byte[sizes.history()]), "history");
        }
    }
}
