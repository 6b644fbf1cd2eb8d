package dev.baton.bench;

import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicSpec;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka alone in the shape of Baton's at-least-once path, with none of Baton's rules: the floor of what Kafka's
 * clients, broker and Streams cost for an activity before Baton decides anything (issue 29; docs/decisions.md, "Kafka
 * Streams in Baton's shape"). Per activity, the eight records Baton writes and the two row writes it makes:
 * <ol>
 *   <li>the client sends the request ({@code bench.shape.dispatch});</li>
 *   <li>a Kafka Streams app with the sites streams app's own Kafka settings puts a row in a logged RocksDB store (its
 *       changelog), and sends the task ({@code bench.shape.tasks}) and a history record ({@code bench.shape.history});</li>
 *   <li>the worker, a plain consumer and producer, reads the task and sends its completion
 *       ({@code bench.shape.worker-events}), committing its offsets every 100 ms as Baton's plain-lease worker does;</li>
 *   <li>the Streams app reads the row back and puts it again (the changelog), and sends a history record and the outcome
 *       ({@code bench.shape.results}), which the client reads.</li>
 * </ol>
 * Records are byte arrays of the sizes Baton's carry (the payload and what Baton's Avro adds to it): no Avro, no token,
 * no decision. Its threads are
 * named so {@link CpuByRole} gives each to the role Baton's own would have.
 */
final class ShapeEcho extends ProducedEcho {
    private static final String APP_ID = "bench-shape-streams";
    private static final String DISPATCH = "bench.shape.dispatch";
    private static final String TASKS = "bench.shape.tasks";
    private static final String EVENTS = "bench.shape.worker-events";
    private static final String HISTORY = "bench.shape.history";
    private static final String RESULTS = "bench.shape.results";
    private static final String STORE = "sites";
    private static final List<String> TOPICS = List.of(DISPATCH, TASKS, EVENTS, HISTORY, RESULTS);
    /**
     * What Baton's at-least-once records carry beyond the payload, in bytes, so the shape's broker and store handle records
     * of Baton's size: Avro events with ids, times, tokens and names. Taken from the log bytes per record of
     * {@code bench dispatch} at the default 100-byte payload (both pipelines print theirs on their {@code bytes} line):
     * dispatch 287, task 307, worker event 232, outcome 252, history 210 and site row 372 bytes a record against 126
     * for a bare 100-byte payload with its key and batch share.
     */
    private static final int DISPATCH_EXTRA = 161;
    private static final int TASK_EXTRA = 181;
    private static final int EVENT_EXTRA = 106;
    private static final int RESULT_EXTRA = 126;
    private static final int ROW_EXTRA = 246;
    private static final byte[] HISTORY_RECORD = new byte[184];
    private static final long WORKER_COMMIT_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String bootstrap;
    private final KafkaProducer<byte[], byte[]> requests;
    private final KafkaStreams streams;
    private final KafkaProducer<byte[], byte[]> completions;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final byte[] payload;

    /** {@code streamsSettings}: the sites streams app's settings for the guarantee measured (its Kafka ones are used). */
    ShapeEcho(String bootstrap, int partitions, int payloadBytes, Map<String, Object> streamsSettings, Path stateDir) throws Exception {
        this.bootstrap = bootstrap;
        this.payload = new byte[payloadBytes];
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            new TopicCreator(admin).create(TOPICS.stream().map(t -> new TopicSpec(t, partitions, (short) 1, Map.of("file.delete.delay.ms", "0"))).toList());
        }
        requests = new KafkaProducer<>(ClientConfigs.durableProducer(bootstrap, Map.of(ProducerConfig.LINGER_MS_CONFIG, 1,
                ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024, ProducerConfig.CLIENT_ID_CONFIG, "bench-shape-dispatch")),
                new ByteArraySerializer(), new ByteArraySerializer());
        completions = new KafkaProducer<>(ClientConfigs.durableProducer(bootstrap, Map.of(ProducerConfig.LINGER_MS_CONFIG, 1,
                ProducerConfig.CLIENT_ID_CONFIG, "bench-shape-worker-events")), new ByteArraySerializer(), new ByteArraySerializer());
        CountDownLatch ready = new CountDownLatch(2);
        loop("bench-shape-worker", TASKS, ready,
                r -> completions.send(new ProducerRecord<>(EVENTS, r.key(), Arrays.copyOf(r.value(), payloadBytes + EVENT_EXTRA))));
        loop("bench-shape-results", RESULTS, ready, r -> answers.answered(ByteBuffer.wrap(r.value()).getLong()));
        streams = new KafkaStreams(topology(), streamsProperties(bootstrap, streamsSettings, stateDir));
        CountDownLatch started = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                started.countDown();
            }
        });
        streams.start();
        if (!started.await(60, TimeUnit.SECONDS) || !ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the Kafka Streams shape did not start within 60 s (state " + streams.state() + ")");
        }
    }

    private static Properties streamsProperties(String bootstrap, Map<String, Object> settings, Path stateDir) {
        Map<String, Object> s = new HashMap<>(settings);
        s.put(StreamsAppConfig.APPLICATION_ID_CONFIG, APP_ID);
        s.put(StreamsAppConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        s.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString());
        Properties p = new StreamsAppConfig(s).streamsProperties();
        p.remove(StreamsAppConfig.SCHEMA_REGISTRY_URL_CONFIG); // Baton's dead-letter handler's, not Kafka's
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        return p;
    }

    private Topology topology() {
        Topology t = new Topology();
        t.addSource("dispatches", DISPATCH);
        t.addSource("events", EVENTS);
        t.addProcessor("sites", () -> new Sites(payload.length), "dispatches", "events");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.ByteArray(), Serdes.ByteArray())
                .withCachingDisabled(), "sites");
        t.addSink("tasks", TASKS, "sites");
        t.addSink("history", HISTORY, "sites");
        t.addSink("results", RESULTS, "sites");
        return t;
    }

    /** A dispatch reads and puts its row and sends the task; a completion reads the row, puts it again and sends the outcome. */
    private static final class Sites implements Processor<byte[], byte[], byte[], byte[]> {
        private final int payloadBytes;
        private ProcessorContext<byte[], byte[]> context;
        private KeyValueStore<byte[], byte[]> rows;

        Sites(int payloadBytes) {
            this.payloadBytes = payloadBytes;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            this.rows = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            boolean dispatch = DISPATCH.equals(context.recordMetadata().orElseThrow().topic());
            if (dispatch) {
                rows.get(record.key()); // as Baton reads a site's row before deciding a dispatch (an absent key, for a new one)
                rows.put(record.key(), Arrays.copyOf(record.value(), payloadBytes + ROW_EXTRA));
                context.forward(record.withValue(Arrays.copyOf(record.value(), payloadBytes + TASK_EXTRA)), "tasks");
            } else {
                byte[] row = rows.get(record.key());
                rows.put(record.key(), row == null ? Arrays.copyOf(record.value(), payloadBytes + ROW_EXTRA) : row.clone());
                context.forward(record.withValue(Arrays.copyOf(record.value(), payloadBytes + RESULT_EXTRA)), "results");
            }
            context.forward(record.withValue(HISTORY_RECORD), "history");
        }
    }

    /** A thread polling {@code topic} in group {@code name}, committing its offsets every 100 ms. */
    private void loop(String name, String topic, CountDownLatch ready, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Thread t = new Thread(() -> {
            Map<String, Object> c = ClientConfigs.groupConsumer(ClientConfigs.settings(bootstrap, Map.of()), name, "latest");
            c.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic));
                while (consumer.assignment().isEmpty()) {
                    consumer.poll(Duration.ofMillis(50));
                }
                consumer.assignment().forEach(consumer::position);
                ready.countDown();
                long lastCommit = System.nanoTime();
                while (running.get()) {
                    consumer.poll(Duration.ofMillis(50)).forEach(each);
                    if (System.nanoTime() - lastCommit >= WORKER_COMMIT_EVERY_NANOS) {
                        consumer.commitAsync();
                        lastCommit = System.nanoTime();
                    }
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
        threads.add(t);
    }

    /** Whether {@code topic} is one of this pipeline's (its changelog too). */
    static boolean owns(String topic) {
        return topic.startsWith("bench.shape.") || topic.startsWith(APP_ID + "-");
    }

    @Override
    protected void produce(long id) {
        byte[] value = Arrays.copyOf(payload, payload.length + DISPATCH_EXTRA);
        ByteBuffer.wrap(value).putLong(id);
        requests.send(new ProducerRecord<>(DISPATCH, ("bench/w" + id + "/1").getBytes(), value));
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
        requests.close(Duration.ofSeconds(5));
        completions.close(Duration.ofSeconds(5));
        streams.close(Duration.ofSeconds(30));
        streams.cleanUp();
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            List<String> all = new ArrayList<>(TOPICS);
            all.add(APP_ID + "-" + STORE + "-changelog");
            admin.deleteTopics(all).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("could not delete the Kafka Streams shape's topics (the Baton phase runs anyway): " + e);
        }
    }
}
