package dev.baton.morsel.node;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.morsel.operator.AggregateExchange;
import dev.baton.morsel.operator.KafkaAggregateExchange;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An engine node: a Baton worker on queue {@value #QUEUE} that runs a job's scan splits and merges.
 *
 * <p><b>Scan</b> ({@value #SCAN}): scans one offset range of the source topic in morsels on the
 * node's scheduler, aggregates, and sends the partial aggregates through the
 * {@link KafkaAggregateExchange} of {@code baton.exchange.<job>}: group {@code k} to partition
 * {@code hash(k) mod P} unless that partition is hot, when it spills to the least-loaded one
 * (counted by {@code baton_morsel_exchange_spilled_groups}). Each record is tagged with its split
 * and its <em>execution</em> ({@code attempt.generation.nonce}, the nonce unguessable). The partials are durable before the
 * activity completes, and the execution id is the activity's output.
 *
 * <p><b>Merge</b> ({@value #MERGE}): reads one exchange partition and sums the partials whose
 * (split, execution) is in the job's manifest; a key that spilled appears in the merges of two
 * partitions, and the job adds their rows — the executions Baton accepted. A node that crashed
 * after writing partials left a zombie execution in the exchange; Baton re-delivered its split under a
 * new generation, and the manifest names only that one, so nothing is counted twice.
 */
public final class EngineNode implements AutoCloseable {

    public static final String QUEUE = "engine";
    public static final String SCAN = "engine.scan";
    public static final String MERGE = "engine.merge";
    static final String SPLIT_HEADER = "baton.split";
    static final String EXECUTION_HEADER = "baton.execution";
    /** Scans and merges a node runs at once (the worker's concurrency); each has its own {@link TopicFold}. */
    private static final int CONCURRENT_STEPS = 2;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Called after a split's partials are durable in the exchange and before its outcome is reported. */
    @FunctionalInterface
    public interface ScanListener {
        void partialsWritten(String nodeId, OffsetRange split, String execution) throws InterruptedException;

        /**
         * Called on a scan thread after each morsel of a split is folded; {@code cancelled} says whether
         * Baton took the scan away (a STOP). For tests that hold a scan mid-way.
         */
        default void morselScanned(String nodeId, OffsetRange split, BooleanSupplier cancelled) throws InterruptedException {
        }
    }

    private final String nodeId;
    private final Map<String, Object> clientConfig;
    private final MorselMetrics metrics;
    private final ScanListener listener;
    /**
     * The exchange producer's settings. Each scan step writes its partials through a producer of its own: a node's one
     * long-lived idempotent producer kept its sequence numbers per partition name across jobs, and a job run again under
     * its id (its exchange deleted and created again under the same name) then met KAFKA-15591's symptom, a batch retried
     * as out of order until the delivery timeout (two minutes), stalling the step and failing a job under a shorter timeout.
     */
    private final Map<String, Object> producerConfig;
    /** Folds with their consumers and scan threads, reused by every step: a step borrows one for its run. */
    private final BlockingQueue<TopicFold> folds = new ArrayBlockingQueue<>(CONCURRENT_STEPS);
    private final StepChecks checks;
    private final Worker worker;

    private EngineNode(String nodeId, Map<String, Object> clientConfig, int threads, ScanListener listener, MeterRegistry meters) {
        this.nodeId = nodeId;
        this.listener = listener;
        this.clientConfig = Map.copyOf(clientConfig);
        this.metrics = new MorselMetrics(meters);
        for (int i = 0; i < CONCURRENT_STEPS; i++) {
            folds.add(new TopicFold(clientConfig, threads, metrics));
        }
        Map<String, Object> p = ClientConfigs.durableProducer(clientConfig);
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        this.producerConfig = Map.copyOf(p);
        this.checks = new StepChecks(clientConfig);
        this.worker = Worker.start(WorkerOptions.builder().kafkaConfig(clientConfig).workerId(nodeId).queues(QUEUE).maxConcurrent(CONCURRENT_STEPS)
                .meters(meters).handler(SCAN, this::scan).handler(MERGE, this::merge).build());
    }

    /**
     * Starts a node serving {@value #QUEUE} with {@code threads} scan threads per step.
     *
     * @param meters where the node's morsel and worker meters are registered (the process's served registry)
     */
    public static EngineNode start(String nodeId, Map<String, Object> clientConfig, int threads, ScanListener listener, MeterRegistry meters) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, was " + threads);
        }
        return new EngineNode(nodeId, clientConfig, threads, listener, meters);
    }

    public static EngineNode start(String nodeId, Map<String, Object> clientConfig, int threads, ScanListener listener) {
        return start(nodeId, clientConfig, threads, listener, new SimpleMeterRegistry());
    }

    public static EngineNode start(String nodeId, Map<String, Object> clientConfig, int threads) {
        return start(nodeId, clientConfig, threads, (n, s, e) -> { });
    }

    public String nodeId() {
        return nodeId;
    }

    static String exchangeTopic(String job) {
        return BatonTopics.EXCHANGE_PREFIX + job;
    }

    private byte[] scan(ActivityContext ctx, byte[] input) throws Exception {
        JobSteps.Scan step = readable(() -> JobSteps.decodeScan(input));
        String job = step.job();
        int partitions = step.exchangePartitions();
        OffsetRange split = step.split();
        checks.scan(step, exchangeTopic(job));
        // Not attempt.generation alone: any dispatcher may scan a job's split again under a site of its own, and its
        // partials would carry the execution the manifest names ("1.1"). Unguessable, they count only if Baton accepted them.
        String execution = ctx.attempt() + "." + ctx.generation() + "." + nonce();
        BooleanSupplier stopped = ctx::isCancelled;
        Map<Long, long[]> rows;
        try {
            rows = withFold(fold -> {
                // The fold's consumers are kept from step to step; what they fetched for an earlier step may be of a topic
                // deleted and created again under its name since (a nightly export), at the offsets this split names.
                fold.forgetFetched();
                return fold.fold(List.of(split), HashMap<Long, long[]>::new,
                        (acc, r) -> SumRows.add(acc, SumRows.keyOf(r), SumRows.valueOf(r), 1), SumRows::merge,
                        stopped, () -> listener.morselScanned(nodeId, split, stopped)).value(); // a STOP ends it within the morsel being read
            });
        } catch (RuntimeException e) {
            SumRows.NotARow notARow = SumRows.NotARow.in(e);
            if (notARow != null) { // the topic's bytes will not change: another attempt would fail the same way
                throw new TerminalActivityException(notARow.getMessage());
            }
            throw e;
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(SPLIT_HEADER, split.toString().getBytes(StandardCharsets.UTF_8));
        headers.add(EXECUTION_HEADER, execution.getBytes(StandardCharsets.UTF_8));
        KafkaAggregateExchange exchange = new KafkaAggregateExchange(clientConfig, exchangeTopic(job), partitions, SumRows.SLOTS);
        AggregateExchange.Layout layout;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            layout = exchange.send(producer, SumRows.toResult(rows),
                    KafkaAggregateExchange.hotThreshold(rows.size(), partitions), headers); // every partial durable before the split may complete
        }
        metrics.exchangeSpilled(layout.spilled());
        listener.partialsWritten(nodeId, split, execution);
        return JobSteps.encodeScanDone(execution);
    }

    private byte[] merge(ActivityContext ctx, byte[] input) throws Exception {
        JobSteps.Merge step = readable(() -> JobSteps.decodeMerge(input));
        String topic = exchangeTopic(step.job());
        int partition = step.exchangePartition();
        Map<String, String> manifest = step.acceptedBySplit();
        checks.merge(step, topic);
        KafkaAggregateExchange exchange = new KafkaAggregateExchange(clientConfig, topic, TopicScan.partitionCount(clientConfig, topic), SumRows.SLOTS);
        Map<Long, long[]> rows = SumRows.fromResult(exchange.merge(partition, r -> accepted(r, manifest), ctx::isCancelled));
        return JobSteps.encodeRows(rows);
    }

    private static String nonce() {
        byte[] b = new byte[12];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** A step this node cannot read never will: it fails terminally, naming why. */
    private static <T> T readable(Supplier<T> decode) throws TerminalActivityException {
        try {
            return decode.get();
        } catch (JobProtocolException e) {
            throw new TerminalActivityException(e.getMessage(), e);
        }
    }

    private <T> T withFold(Function<TopicFold, T> work) throws InterruptedException {
        TopicFold fold = folds.take();
        try {
            return work.apply(fold);
        } finally {
            folds.add(fold);
        }
    }

    private static boolean accepted(ConsumerRecord<byte[], byte[]> r, Map<String, String> manifest) {
        Header split = r.headers().lastHeader(SPLIT_HEADER);
        Header execution = r.headers().lastHeader(EXECUTION_HEADER);
        return split != null && execution != null
                && new String(execution.value(), StandardCharsets.UTF_8).equals(manifest.get(new String(split.value(), StandardCharsets.UTF_8)));
    }

    /** A crash, for tests: the worker stops without reporting anything. */
    public void kill() {
        worker.kill();
        folds.forEach(TopicFold::close);
        checks.close();
    }

    @Override
    public void close() {
        worker.close();
        folds.forEach(TopicFold::close);
        checks.close();
    }
}
