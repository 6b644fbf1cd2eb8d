package dev.baton.morsel.node;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.morsel.kafka.TopicFold;
import dev.baton.morsel.kafka.TopicSplits;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An engine node: a Baton worker on queue {@value #QUEUE} that runs a job's scan splits and merges.
 *
 * <p><b>Scan</b> ({@value #SCAN}): scans one offset range of the source topic in morsels on the
 * node's scheduler, aggregates, and produces the partial aggregates to partition
 * {@code hash(key) mod P} of {@code baton.exchange.<job>}, each tagged with its split and its
 * <em>execution</em> ({@code attempt.generation}). The partials are durable before the activity
 * completes, and the execution id is the activity's output.
 *
 * <p><b>Merge</b> ({@value #MERGE}): reads one exchange partition and sums the partials whose
 * (split, execution) is in the job's manifest — the executions Baton accepted. A node that crashed
 * after writing partials left a zombie execution in the exchange; Baton re-delivered its split under a
 * new generation, and the manifest names only that one, so nothing is counted twice.
 */
public final class EngineNode implements AutoCloseable {

    public static final String QUEUE = "engine";
    public static final String SCAN = "engine.scan";
    public static final String MERGE = "engine.merge";
    static final String SPLIT_HEADER = "baton.split";
    static final String EXECUTION_HEADER = "baton.execution";
    private static final long OFFSETS_PER_MORSEL = 20_000;

    /** Called after a split's partials are durable in the exchange and before its outcome is reported. */
    @FunctionalInterface
    public interface ScanListener {
        void partialsWritten(String nodeId, OffsetRange split, String execution) throws InterruptedException;
    }

    private final String nodeId;
    private final Map<String, Object> clientConfig;
    private final int threads;
    private final ScanListener listener;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Worker worker;

    private EngineNode(String nodeId, Map<String, Object> clientConfig, int threads, ScanListener listener) {
        this.nodeId = nodeId;
        this.clientConfig = Map.copyOf(clientConfig);
        this.threads = threads;
        this.listener = listener;
        Map<String, Object> p = ClientConfigs.durableProducer(clientConfig);
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.worker = Worker.start(WorkerOptions.builder().kafkaConfig(clientConfig).workerId(nodeId).queues(QUEUE).maxConcurrent(2)
                .handler(SCAN, this::scan).handler(MERGE, this::merge).build());
    }

    /** Starts a node serving {@value #QUEUE} with {@code threads} scan threads. */
    public static EngineNode start(String nodeId, Map<String, Object> clientConfig, int threads, ScanListener listener) {
        return new EngineNode(nodeId, clientConfig, threads, listener);
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
        JobSteps.Scan step = JobSteps.decodeScan(input);
        String job = step.job();
        int partitions = step.exchangePartitions();
        OffsetRange split = step.split();
        String execution = ctx.attempt() + "." + ctx.generation();
        Map<Long, long[]> rows = TopicFold.fold(clientConfig, split.split(OFFSETS_PER_MORSEL), threads, HashMap<Long, long[]>::new,
                (acc, r) -> SumRows.add(acc, SumRows.longOf(r.key()), SumRows.longOf(r.value()), 1), SumRows::merge).value();
        RecordHeaders headers = new RecordHeaders();
        headers.add(SPLIT_HEADER, split.toString().getBytes(StandardCharsets.UTF_8));
        headers.add(EXECUTION_HEADER, execution.getBytes(StandardCharsets.UTF_8));
        List<Future<RecordMetadata>> sends = new ArrayList<>(rows.size());
        for (Map.Entry<Long, long[]> row : rows.entrySet()) {
            byte[] value = ByteBuffer.allocate(16).putLong(row.getValue()[0]).putLong(row.getValue()[1]).array();
            sends.add(producer.send(new ProducerRecord<>(exchangeTopic(job), HashExchange.partitionOf(row.getKey(), partitions),
                    SumRows.longBytes(row.getKey()), value, headers)));
        }
        producer.flush();
        for (Future<RecordMetadata> f : sends) {
            f.get(); // every partial durable before the split may complete
        }
        listener.partialsWritten(nodeId, split, execution);
        return JobSteps.encodeScanDone(execution);
    }

    private byte[] merge(ActivityContext ctx, byte[] input) {
        JobSteps.Merge step = JobSteps.decodeMerge(input);
        String topic = exchangeTopic(step.job());
        int partition = step.exchangePartition();
        Map<String, String> manifest = step.acceptedBySplit();
        List<OffsetRange> range;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            range = TopicSplits.of(consumer, topic, Long.MAX_VALUE).stream().filter(r -> r.partition() == partition).toList();
        }
        Map<Long, long[]> rows = TopicFold.fold(clientConfig, range, 1, HashMap<Long, long[]>::new, (acc, r) -> {
            if (accepted(r, manifest)) {
                ByteBuffer v = ByteBuffer.wrap(r.value());
                SumRows.add(acc, SumRows.longOf(r.key()), v.getLong(), v.getLong());
            }
        }, SumRows::merge).value();
        return JobSteps.encodeRows(rows);
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
        producer.close(Duration.ZERO);
    }

    @Override
    public void close() {
        worker.close();
        producer.close(Duration.ofSeconds(5));
    }
}
