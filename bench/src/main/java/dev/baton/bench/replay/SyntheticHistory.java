package dev.baton.bench.replay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
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
 *
 * <p>The order is a running platform's: activities start at a steady rate, each event comes a lease, a handler's
 * run, a retry's backoff or a heartbeat timeout after the one before, and records are written in the order of
 * their times, so a site's events sit among the other sites' in flight (docs/decisions.md, "The bench's history
 * interleaves sites"). At rate 0 each activity's events are written back to back, the layout of the bench's
 * first versions, which flatters any scan that folds a site's adjacent records. The layout is recorded beside
 * the broker's data so a kept history is not measured as the other one.
 */
final class SyntheticHistory {

    /** What is on the broker: history records and result records, and the layout they were written in. */
    record Written(long history, long results, boolean reused, long nanos, String layout) {
    }

    /** Where the data dir records how its history was written; a history without it was written back to back. */
    private static final String LAYOUT_FILE = "synthetic-history.layout";

    private static final String NAMESPACE = "demo";
    private static final int CLIENTS = 8;

    private SyntheticHistory() {
    }

    /**
     * The history of {@code records} records at {@code activitiesPerSecond} (0: back to back) on the broker, written
     * unless {@code dataDir} already holds it.
     *
     * @throws KeptHistoryMismatch when {@code dataDir} keeps a history of another size or layout (both named)
     */
    static Written ensure(Map<String, Object> clientConfig, long records, int activitiesPerSecond, Path dataDir) throws Exception {
        long start = System.nanoTime();
        String layout = layout(activitiesPerSecond);
        Path layoutFile = dataDir.resolve(LAYOUT_FILE);
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults(), List.of("demo"), Map.of()));
            long present = endOffsetSum(admin, BatonTopics.HISTORY);
            if (present != 0) {
                String kept = Files.exists(layoutFile) ? Files.readString(layoutFile).strip() : layout(0);
                if (present != records || !kept.equals(layout)) {
                    throw new KeptHistoryMismatch(dataDir + " holds a history of " + present + " records, " + kept + ", not " + records
                            + " records, " + layout + "; remove it (or pass another --data-dir) to write a new history");
                }
                return new Written(present, endOffsetSum(admin, BatonTopics.RESULTS), true, System.nanoTime() - start, layout);
            }
        }
        long results = write(clientConfig, records, activitiesPerSecond);
        Files.writeString(layoutFile, layout + System.lineSeparator());
        return new Written(records, results, false, System.nanoTime() - start, layout);
    }

    /** A data dir that already holds a history of another size or layout than the one asked for: the user's to resolve. */
    static final class KeptHistoryMismatch extends RuntimeException {
        KeptHistoryMismatch(String message) {
            super(message);
        }
    }

    private static String layout(int activitiesPerSecond) {
        return activitiesPerSecond == 0 ? "each activity's events back to back" : "interleaved as at " + activitiesPerSecond + " activities/s";
    }

    private static long write(Map<String, Object> clientConfig, long records, int activitiesPerSecond) {
        Map<String, Object> p = new java.util.HashMap<>(clientConfig);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L * 1024 * 1024);
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", clientConfig);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            long results = generate(records, activitiesPerSecond, new Sink() {
                @Override
                public void history(byte[] key, HistoryEvent e) {
                    producer.send(new ProducerRecord<>(BatonTopics.HISTORY, key, history.encode(BatonTopics.HISTORY, e)));
                }

                @Override
                public void result(Outcome o) {
                    producer.send(new ProducerRecord<>(BatonTopics.RESULTS, o.getReplyKey().getBytes(StandardCharsets.UTF_8),
                            outcomes.encode(BatonTopics.RESULTS, o)));
                }
            });
            producer.flush();
            return results;
        }
    }

    /** Where the generated records go, in the order they are to be written. */
    interface Sink {
        void history(byte[] key, HistoryEvent e);

        void result(Outcome o);
    }

    /**
     * The history of {@code records} events at {@code activitiesPerSecond} (0: back to back), and an outcome per
     * activity, handed to {@code sink} in the order a running platform writes them; returns the outcomes handed.
     */
    static long generate(long records, int activitiesPerSecond, Sink sink) {
        SplittableRandom random = new SplittableRandom(30);
        long written = 0;
        long results = 0;
        InTimeOrder pending = new InTimeOrder();
        for (long activity = 0; written < records; activity++) {
            // an activity's start, in milliseconds: back to back, one after the other; else at the rate
            long startsAt = EPOCH_MILLIS + (activitiesPerSecond == 0 ? activity : activity * 1000 / activitiesPerSecond);
            pending.sendUntil(activitiesPerSecond == 0 ? Long.MAX_VALUE : startsAt);
            Activity a = new Activity(activity, random, startsAt);
            List<HistoryEvent> events = a.events();
            for (HistoryEvent e : events.subList(0, (int) Math.min(events.size(), records - written))) {
                pending.add(e.getAtMillis(), () -> sink.history(a.key, e));
                written++;
            }
            // the outcome right after the activity's last event, as the streams app publishes it with the decision
            Outcome o = a.outcome();
            pending.add(o.getAtMillis(), () -> sink.result(o));
            results++;
        }
        pending.sendUntil(Long.MAX_VALUE);
        return results;
    }

    private static final long EPOCH_MILLIS = 1_764_000_000_000L;

    /** Records held until the platform's clock passes their time, then handed on in time order (ties in the order added). */
    private static final class InTimeOrder {
        private record Timed(long at, long seq, Runnable send) {
        }

        private final PriorityQueue<Timed> queue = new PriorityQueue<>(Comparator.comparingLong(Timed::at).thenComparingLong(Timed::seq));
        private long seq;

        void add(long at, Runnable send) {
            queue.add(new Timed(at, seq++, send));
        }

        /** Hands on every record timed before {@code now}. */
        void sendUntil(long now) {
            while (!queue.isEmpty() && queue.peek().at() < now) {
                queue.poll().send().run();
            }
        }
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

        /**
         * Its events, each timed after the one before by what separates them on a running platform: a lease (a few
         * ms), a handler's run (up to ~tens of ms), a retry's backoff (1 s, then 2 s), a park (3 s) or a lost worker's
         * heartbeat timeout (10 s).
         */
        List<HistoryEvent> events() {
            String worker = "worker-" + random.nextInt(4);
            List<HistoryEvent> events = new ArrayList<>();
            events.add(e(HistoryKind.DISPATCHED, 1, null, null));
            events.add(leased(1, 1, worker));
            switch (type) {
                case "flaky" -> {
                    for (int attempt = 1; attempt < 3; attempt++) {
                        events.add(ran(failed(attempt, "retryable: flaky attempt " + attempt)));
                        events.add(e(HistoryKind.RETRY_SCHEDULED, attempt, 1, null));
                        at += 1000L * attempt;
                        events.add(e(HistoryKind.DISPATCHED, attempt + 1, null, null));
                        events.add(leased(attempt + 1, 1, worker));
                    }
                    events.add(ran(completed(3, 1, worker)));
                }
                case "terminal" -> events.add(ran(failed(1, "terminal: this activity always fails")));
                case "long" -> {
                    if (random.nextBoolean()) {
                        events.add(ran(e(HistoryKind.PARKED, 1, 1, worker)));
                        at += 3000;
                    } else {
                        at += 10_000;
                        events.add(lost());
                    }
                    events.add(leased(1, 2, worker));
                    events.add(ran(completed(1, 2, worker)));
                }
                default -> events.add(ran(completed(1, 1, worker)));
            }
            return events;
        }

        /** A lease, a few ms after the dispatch. */
        private HistoryEvent leased(int attempt, int generation, String worker) {
            at += 2 + random.nextInt(8);
            return e(HistoryKind.LEASED, attempt, generation, worker);
        }

        /** {@code e} after a handler's run: 1-40 ms, its time moved to the run's end. */
        private HistoryEvent ran(HistoryEvent e) {
            at += 1 + random.nextInt(40);
            e.setAtMillis(at++);
            return e;
        }

        Outcome outcome() {
            boolean ok = !type.equals("terminal");
            return Outcome.newBuilder().setStatus(ok ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED).setSite(site.toRef())
                    .setRequestId(requestId).setReplyKey(client).setAttempt(type.equals("flaky") ? 3 : 1)
                    .setOutput(ok ? output() : null).setReason(ok ? null : "terminal: this activity always fails")
                    .setWorkerId("worker-0").setAtMillis(at).build();
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
