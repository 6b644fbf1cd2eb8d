package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.ActivityTask;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.names.TopologyNames;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A live worker's heartbeats stuck behind an open transaction on {@code baton.worker-events} (a
 * worker killed inside its lease transaction leaves one open until the broker aborts it) must not
 * cost it its lease: the streams app may not read past the open transaction, so the heartbeat
 * deadline waits for the clock tick the app writes behind them. The worker here is a plain
 * producer, so the test controls exactly what is written and when.
 */
class HeartbeatBacklogIT {

    private static final String QUEUE = "backlog";
    private static final Duration WINDOW = Duration.ofMillis(1_500);
    private static LocalCluster cluster;
    private static SchemaRegistry registry;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(1, List.of(QUEUE));
        registry = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of());
    }

    @AfterAll
    static void stop() {
        registry.close();
        cluster.close();
    }

    @Test
    void shouldKeepALeaseWhoseHeartbeatsAreStuckBehindAnOpenTransaction() throws Exception {
        ActivityRequest req = ActivityRequest.builder().site("backlog", "wf-1", "1").queue(QUEUE).activityType("slow")
                .input("x".getBytes(UTF_8), "text/plain").heartbeat(WINDOW).build();
        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
        try (DispatchClient client = cluster.client("backlog", o -> { });
             KafkaProducer<byte[], byte[]> worker = new KafkaProducer<>(producerConfig(null), new ByteArraySerializer(), new ByteArraySerializer());
             KafkaProducer<byte[], byte[]> blocker = new KafkaProducer<>(producerConfig("blocker"), new ByteArraySerializer(),
                     new ByteArraySerializer())) {
            CompletableFuture<ActivityOutcome> outcome = client.dispatch(req);
            ActivityTask task = await().atMost(LocalCluster.PATIENCE).until(() -> firstTask(req.site()), t -> t != null);
            send(worker, task, WorkerEventKind.LEASED, null);
            await().atMost(LocalCluster.PATIENCE).until(() -> kinds(req.site()).contains(HistoryKind.LEASED));
            long leasedAt = System.currentTimeMillis();

            blocker.initTransactions();
            blocker.beginTransaction();
            blocker.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, 0, "blocker".getBytes(UTF_8), new byte[0])).get();
            heartbeats.scheduleAtFixedRate(() -> send(worker, task, WorkerEventKind.HEARTBEAT, null), 0, WINDOW.toMillis() / 3,
                    TimeUnit.MILLISECONDS);

            // Twice the window past the lease by the app's own clock ticks (which it cannot read back yet),
            // unless it declares the lease lost first.
            await().atMost(LocalCluster.PATIENCE).until(() -> newestTick() > leasedAt + 2 * WINDOW.toMillis()
                    || kinds(req.site()).contains(HistoryKind.TRANSPORT_LOST));
            assertThat(kinds(req.site())).as("no transport loss while the heartbeats are unread").doesNotContain(HistoryKind.TRANSPORT_LOST);

            blocker.commitTransaction(); // the app reads the heartbeats, then its ticks behind them
            await().atMost(LocalCluster.PATIENCE).until(() -> cluster.streamsAppCaughtUp(BatonTopics.WORKER_EVENTS));
            heartbeats.shutdownNow();
            send(worker, task, WorkerEventKind.COMPLETED, "done"); // refused, and never answered, had the lease been lost

            ActivityOutcome o = outcome.get(60, TimeUnit.SECONDS);
            assertThat(o.completed()).as(o.toString()).isTrue();
            assertThat(kinds(req.site())).as("the lease was never declared lost").doesNotContain(HistoryKind.TRANSPORT_LOST)
                    .contains(HistoryKind.COMPLETED);
        } finally {
            heartbeats.shutdownNow();
        }
    }

    private static Map<String, Object> producerConfig(String transactionalId) {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        if (transactionalId != null) {
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return config;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, ActivityTask task, WorkerEventKind kind, String output) {
        WorkerEvent e = WorkerEvent.newBuilder().setKind(kind).setSite(task.getSite()).setAttempt(task.getAttempt())
                .setGeneration(task.getGeneration()).setToken(task.getToken()).setWorkerId("plain-worker")
                .setOutput(output == null ? null : new Payload(ByteBuffer.wrap(output.getBytes(UTF_8)), "text/plain"))
                .setAtMillis(System.currentTimeMillis()).build();
        producer.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, SiteKey.of(task.getSite()).toBytes(),
                EventSerde.of(WorkerEvent.class, registry).encode(BatonTopics.WORKER_EVENTS, e)));
        producer.flush();
    }

    private static ActivityTask firstTask(SiteKey site) {
        EventSerde<ActivityTask> serde = EventSerde.of(ActivityTask.class, registry);
        for (ConsumerRecord<byte[], byte[]> r : TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks(QUEUE))) {
            ActivityTask t = serde.decode(r);
            if (SiteKey.of(t.getSite()).equals(site)) {
                return t;
            }
        }
        return null;
    }

    private static List<HistoryKind> kinds(SiteKey site) {
        EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
        return TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.HISTORY).stream().map(serde::decode)
                .filter(e -> SiteKey.of(e.getSite()).equals(site)).map(HistoryEvent::getKind).toList();
    }

    /** The newest clock tick on worker-events, committed or not (the app cannot read it while the transaction is open). */
    private static long newestTick() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        long newest = Long.MIN_VALUE;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(BatonTopics.WORKER_EVENTS, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Header tick = r.headers().lastHeader(TopologyNames.CLOCK_HEADER);
                    if (tick != null) {
                        newest = Math.max(newest, ByteBuffer.wrap(tick.value()).getLong());
                    }
                }
            }
        }
        return newest;
    }
}
