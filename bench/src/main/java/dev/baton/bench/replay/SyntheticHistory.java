package dev.baton.bench.replay;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a {@code baton.history} of N records shaped like the demo's (its handlers' mix: echo
 * mostly, some flaky activities retried twice, terminal failures, parks and transport losses; outputs
 * of 16-200 bytes), with one {@code baton.results} outcome per activity, as the streams app would.
 * Produced without transactions, in large batches; kept and reused when the topic already holds N.
 */
final class SyntheticHistory {

    /** What is on the broker: history records and result records. */
    record Written(long history, long results, boolean reused, long nanos) {
    }

    private static final String NAMESPACE = "demo";
    private static final int CLIENTS = 8;

    private SyntheticHistory() {
    }

    static Written ensure(Map<String, Object> clientConfig, long records) throws Exception {
        long start = System.nanoTime();
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults(), List.of("demo"), Map.of()));
            long present = endOffsetSum(admin, BatonTopics.HISTORY);
            if (present == records) {
                return new Written(present, endOffsetSum(admin, BatonTopics.RESULTS), true, System.nanoTime() - start);
            }
            if (present != 0) {
                throw new IllegalStateException(BatonTopics.HISTORY + " holds " + present + " records, not " + records
                        + "; remove the bench's --data-dir to write a new history");
            }
        }
        long results = write(clientConfig, records);
        return new Written(records, results, false, System.nanoTime() - start);
    }

    private static long write(Map<String, Object> clientConfig, long records) {
        Map<String, Object> p = new java.util.HashMap<>(clientConfig);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L * 1024 * 1024);
        SplittableRandom random = new SplittableRandom(30);
        long written = 0;
        long results = 0;
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", clientConfig);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            long at = 1_764_000_000_000L;
            for (long activity = 0; written < records; activity++) {
                Activity a = new Activity(activity, random, at);
                at += 1;
                for (HistoryEvent e : a.events()) {
                    if (written == records) {
                        break;
                    }
                    producer.send(new ProducerRecord<>(BatonTopics.HISTORY, a.key, history.encode(BatonTopics.HISTORY, e)));
                    written++;
                }
                Outcome o = a.outcome();
                producer.send(new ProducerRecord<>(BatonTopics.RESULTS, o.getReplyKey().getBytes(StandardCharsets.UTF_8),
                        outcomes.encode(BatonTopics.RESULTS, o)));
                results++;
            }
            producer.flush();
        }
        return results;
    }

    /** One activity's history, drawn from the demo's mix. */
    private static final class Activity {
        final SiteKey site;
        final byte[] key;
        final String type;
        final String requestId;
        final String client;
        final SplittableRandom random;
        long at;

        Activity(long n, SplittableRandom random, long at) {
            this.random = random;
            this.site = new SiteKey(NAMESPACE, "wf-" + n, Integer.toString((int) (n % 7)));
            this.key = site.asKey().getBytes(StandardCharsets.UTF_8);
            int pick = random.nextInt(100);
            this.type = pick < 75 ? "echo" : pick < 80 ? "flaky" : pick < 90 ? "terminal" : "long";
            this.requestId = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
            this.client = "demo-client-" + (n % CLIENTS);
            this.at = at;
        }

        List<HistoryEvent> events() {
            String worker = "worker-" + random.nextInt(4);
            return switch (type) {
                case "flaky" -> List.of(e(HistoryKind.DISPATCHED, 1, null, null), e(HistoryKind.LEASED, 1, 1, worker),
                        failed(1, "retryable: flaky attempt 1"), e(HistoryKind.RETRY_SCHEDULED, 1, 1, null),
                        e(HistoryKind.DISPATCHED, 2, null, null), e(HistoryKind.LEASED, 2, 1, worker), failed(2, "retryable: flaky attempt 2"),
                        e(HistoryKind.RETRY_SCHEDULED, 2, 1, null), e(HistoryKind.DISPATCHED, 3, null, null), e(HistoryKind.LEASED, 3, 1, worker),
                        completed(3, 1, worker));
                case "terminal" -> List.of(e(HistoryKind.DISPATCHED, 1, null, null), e(HistoryKind.LEASED, 1, 1, worker),
                        failed(1, "terminal: this activity always fails"));
                case "long" -> random.nextBoolean()
                        ? List.of(e(HistoryKind.DISPATCHED, 1, null, null), e(HistoryKind.LEASED, 1, 1, worker), e(HistoryKind.PARKED, 1, 1, worker),
                                e(HistoryKind.LEASED, 1, 2, worker), completed(1, 2, worker))
                        : List.of(e(HistoryKind.DISPATCHED, 1, null, null), e(HistoryKind.LEASED, 1, 1, worker),
                                lost(), e(HistoryKind.LEASED, 1, 2, worker), completed(1, 2, worker));
                default -> List.of(e(HistoryKind.DISPATCHED, 1, null, null), e(HistoryKind.LEASED, 1, 1, worker), completed(1, 1, worker));
            };
        }

        Outcome outcome() {
            boolean ok = !type.equals("terminal");
            return Outcome.newBuilder().setStatus(ok ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED).setSite(site.toRef())
                    .setRequestId(requestId).setReplyKey(client).setAttempt(type.equals("flaky") ? 3 : 1)
                    .setOutput(ok ? output() : null).setReason(ok ? null : "terminal: this activity always fails")
                    .setWorkerId("worker-0").setAtMillis(at + 5).build();
        }

        private HistoryEvent e(HistoryKind kind, int attempt, Integer generation, String worker) {
            HistoryEvent.Builder b = HistoryEvent.newBuilder().setKind(kind).setSite(site.toRef()).setAttempt(attempt).setGeneration(generation)
                    .setWorkerId(worker).setRequestId(requestId).setIdempotencyKey(requestId.substring(0, 18) + "-idem").setAtMillis(at++);
            if (kind == HistoryKind.DISPATCHED) {
                b.setQueue("demo").setActivityType(type);
            }
            return b.build();
        }

        private HistoryEvent completed(int attempt, int generation, String worker) {
            HistoryEvent e = e(HistoryKind.COMPLETED, attempt, generation, worker);
            e.setOutput(output());
            return e;
        }

        private HistoryEvent failed(int attempt, String reason) {
            HistoryEvent e = e(HistoryKind.FAILED, attempt, 1, null);
            e.setReason(reason);
            return e;
        }

        private HistoryEvent lost() {
            HistoryEvent e = e(HistoryKind.TRANSPORT_LOST, 1, 1, null);
            e.setReason("lost: no heartbeat for 10 s");
            return e;
        }

        private Payload output() {
            byte[] data = new byte[16 + random.nextInt(185)];
            random.nextBytes(data);
            return new Payload(ByteBuffer.wrap(data), "application/octet-stream");
        }
    }

    static long endOffsetSum(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        d.partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(i -> i.offset()).sum();
    }
}
