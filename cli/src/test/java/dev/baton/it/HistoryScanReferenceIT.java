package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.HistoryStats;
import dev.baton.morsel.history.Replay;
import dev.baton.morsel.history.SiteTrail;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The projected, parallel history scans answer what a plain Java loop over fully decoded events
 * answers: {@code history stats} by outcome, queue and type (counts and latency percentiles) and
 * replay's dangling sites, on a random history of retries, failures and open sites, at 1 and 2 threads.
 */
class HistoryScanReferenceIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final int ACTIVITIES = 3_000;
    private static final String REGISTRY = "kafka://";
    /** A time half-way through the history's events: a scope from it leaves out the earlier half. */
    private static final long MIDWAY = 1_000_000L + ACTIVITIES * 10L / 2;
    /**
     * Dispatches under keys that are not UTF-8 and decode alike ("main/wf-bad\uFFFD/1"): no Baton write has such a key,
     * and both the scan and the plain loop leave them out as undecodable.
     */
    private static final List<byte[]> BAD_KEYS = List.of("main/wf-bad?/1".getBytes(UTF_8), "main/wf-bad?/1".getBytes(UTF_8));

    static {
        BAD_KEYS.get(0)[11] = (byte) 0xff;
        BAD_KEYS.get(1)[11] = (byte) 0xfe;
    }

    @BeforeAll
    static void writeHistory() throws Exception {
        Map<String, Object> config = config();
        try (Admin admin = Admin.create(config)) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(4), List.of("q"), Map.of()));
        }
        SplittableRandom random = new SplittableRandom(30);
        List<Future<?>> sends = new ArrayList<>();
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            for (int n = 0; n < ACTIVITIES; n++) {
                SiteKey site = new SiteKey(n % 3 == 0 ? "other" : "main", "wf-" + n, "1");
                byte[] key = site.asKey().getBytes(UTF_8);
                String queue = "q" + random.nextInt(3);
                String type = "t" + random.nextInt(4);
                int attempts = 1 + random.nextInt(3);
                long at = 1_000_000L + n * 10L;
                String request = null;
                for (int attempt = 1; attempt <= attempts; attempt++) {
                    request = "req-" + n + "-" + attempt;
                    for (HistoryKind kind : List.of(HistoryKind.DISPATCHED, HistoryKind.LEASED, HistoryKind.FAILED)) {
                        if (kind == HistoryKind.FAILED && attempt == attempts) {
                            break;
                        }
                        HistoryEvent e = HistoryEvent.newBuilder().setKind(kind).setSite(site.toRef()).setAttempt(attempt).setRequestId(request)
                                .setQueue(kind == HistoryKind.DISPATCHED ? queue : null).setActivityType(kind == HistoryKind.DISPATCHED ? type : null)
                                .setReason(kind == HistoryKind.FAILED ? "retryable: try again" : null).setAtMillis(at++).build();
                        sends.add(producer.send(new ProducerRecord<>(BatonTopics.HISTORY, key, history.encode(BatonTopics.HISTORY, e))));
                    }
                }
                int fate = random.nextInt(10);
                if (fate < 8) { // answered; the rest stay open (dangling: no streams state exists here)
                    boolean ok = fate < 6;
                    at += random.nextInt(5_000);
                    Outcome o = Outcome.newBuilder().setStatus(ok ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED).setSite(site.toRef())
                            .setRequestId(request).setReplyKey("client").setAttempt(attempts).setReason(ok ? null : fate == 6 ? "terminal: no" : "cancelled: by caller")
                            .setOutput(ok ? new Payload(ByteBuffer.wrap(new byte[random.nextInt(50)]), "application/octet-stream") : null)
                            .setAtMillis(at).build();
                    sends.add(producer.send(new ProducerRecord<>(BatonTopics.RESULTS, "client".getBytes(UTF_8), outcomes.encode(BatonTopics.RESULTS, o))));
                }
            }
            for (byte[] bad : BAD_KEYS) {
                HistoryEvent e = HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED).setSite(new SiteKey("main", "wf-bad", "1").toRef())
                        .setAttempt(1).setRequestId("req-bad").setQueue("q0").setActivityType("t0").setAtMillis(1_000_000L).build();
                sends.add(producer.send(new ProducerRecord<>(BatonTopics.HISTORY, bad, history.encode(BatonTopics.HISTORY, e))));
            }
        }
        for (Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldAnswerHistoryStatsAsThePlainJavaLoopDoesAtOneAndTwoThreads() {
        for (int threads : new int[] {1, 2}) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                for (HistoryStats.GroupBy by : HistoryStats.GroupBy.values()) {
                    for (String namespace : new String[] {null, "other"}) {
                        Map<String, List<String>> engine = new TreeMap<>();
                        HistoryStats.compute(log, new HistoryLog.Scope(Long.MIN_VALUE, namespace), by)
                                .forEach((k, g) -> engine.put(k, List.of(Long.toString(g.count()), g.percentile(50), g.percentile(99), g.percentile(100))));
                        assertThat(engine).as(by + " in " + namespace + " at " + threads + " threads").isEqualTo(plainStats(by, namespace, Long.MIN_VALUE)).isNotEmpty();
                    }
                    Map<String, List<String>> fromMidway = new TreeMap<>();
                    HistoryStats.compute(log, new HistoryLog.Scope(MIDWAY, null), by)
                            .forEach((k, g) -> fromMidway.put(k, List.of(Long.toString(g.count()), g.percentile(50), g.percentile(99), g.percentile(100))));
                    assertThat(fromMidway).as(by + " from " + MIDWAY + " at " + threads + " threads").isEqualTo(plainStats(by, null, MIDWAY)).isNotEmpty();
                }
                assertThat(log.lastScan().records()).isGreaterThan(ACTIVITIES);
            }
        }
    }

    @Test
    void shouldFindTheDanglingSitesThePlainJavaLoopFinds() {
        try (HistoryLog log = new HistoryLog(config(), REGISTRY, 2)) {
            Replay.Report report = Replay.analyse(log, HistoryLog.Scope.ALL, "no-such-app");

            Map<String, Trail> plain = plainSites(null, Long.MIN_VALUE);
            Map<String, Boolean> answered = plainAnswers();
            List<String> dangling = plain.values().stream().filter(t -> !answered.containsKey(t.requestId)).map(t -> t.site).sorted().toList();
            assertThat(report.dangling().stream().map(SiteTrail::siteKey).toList()).isEqualTo(dangling).isNotEmpty();
            assertThat(report.sites()).isEqualTo(ACTIVITIES);
            assertThat(log.lastUndecodable()).isEqualTo(BAD_KEYS.size());
            Map<String, Integer> byOutcome = new TreeMap<>();
            Map<String, Outcome> outcomes = plainOutcomes();
            plain.values().stream().map(t -> outcomes.get(t.requestId)).filter(o -> o != null).forEach(o -> byOutcome.merge(kind(o), 1, Integer::sum));
            assertThat(report.byOutcome()).isEqualTo(byOutcome);
            assertThat(report.resolved()).isEqualTo(byOutcome.values().stream().mapToInt(Integer::intValue).sum());
            for (SiteTrail t : report.dangling()) {
                Trail p = plain.get(t.siteKey());
                assertThat(List.of(t.requestId(), t.attempt(), t.queue())).as(t.siteKey()).isEqualTo(List.of(p.requestId, p.attempt, p.queue));
            }
        }
    }

    @Test
    void shouldListAWorkflowsEventsAsThePlainJavaLoopDoesEarliestFirst() {
        try (HistoryLog log = new HistoryLog(config(), REGISTRY, 2)) {
            for (String workflow : List.of("wf-7", "wf-9", "wf-2999")) {
                String namespace = Integer.parseInt(workflow.substring(3)) % 3 == 0 ? "other" : "main";
                List<HistoryEvent> plain = new ArrayList<>();
                try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config())) {
                    EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
                    TopicScan.forEach(KAFKA.bootstrapServers(), BatonTopics.HISTORY, r -> {
                        HistoryEvent e = serde.decode(r);
                        if (e.getSite().getWorkflowId().equals(workflow) && wellFormed(r.key())) {
                            plain.add(e);
                        }
                    });
                }
                plain.sort(java.util.Comparator.comparingLong(HistoryEvent::getAtMillis));

                assertThat(log.workflow(workflow, null)).as(workflow).isEqualTo(plain).isNotEmpty();
                assertThat(log.workflow(workflow, namespace)).as(workflow + " in " + namespace).isEqualTo(plain);
                assertThat(log.workflow(workflow, "no-such-namespace")).isEmpty();
            }
            assertThat(log.workflow("wf-none", null)).isEmpty();
            assertThat(log.workflow("wf-bad", null)).as("only records under keys that are not UTF-8").isEmpty();
        }
    }

    private static String kind(Outcome o) {
        return o.getStatus() == OutcomeStatus.COMPLETED ? "completed" : o.getReason().substring(0, o.getReason().indexOf(':') + 1);
    }

    /** A site as the plain loop folds it: the latest dispatch by offset, the first dispatch's time. */
    private static final class Trail {
        String site;
        long dispatchOffset = -1;
        String requestId;
        int attempt;
        String queue;
        String type;
        long firstAt = Long.MAX_VALUE;
    }

    private static Map<String, Trail> plainSites(String namespace, long fromMillis) {
        Map<String, Trail> sites = new HashMap<>();
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config())) {
            EventSerde<HistoryEvent> serde = EventSerde.of(HistoryEvent.class, registry);
            TopicScan.forEach(KAFKA.bootstrapServers(), BatonTopics.HISTORY, r -> {
                if (!wellFormed(r.key())) {
                    return; // not a key Baton writes: undecodable for the history queries
                }
                HistoryEvent e = serde.decode(r);
                if (e.getKind() != HistoryKind.DISPATCHED || namespace != null && !namespace.equals(e.getSite().getNamespace())
                        || e.getAtMillis() < fromMillis) {
                    return;
                }
                Trail t = sites.computeIfAbsent(new String(r.key(), UTF_8), k -> new Trail());
                t.site = new String(r.key(), UTF_8);
                t.firstAt = Math.min(t.firstAt, e.getAtMillis());
                if (r.offset() > t.dispatchOffset) {
                    t.dispatchOffset = r.offset();
                    t.requestId = e.getRequestId();
                    t.attempt = e.getAttempt();
                    t.queue = e.getQueue();
                    t.type = e.getActivityType();
                }
            });
        }
        return sites;
    }

    /** Request id -> completed?, from the first outcome of each request; values' kinds in {@link #plainKinds}. */
    private static Map<String, Boolean> plainAnswers() {
        Map<String, Boolean> out = new HashMap<>();
        plainOutcomes().forEach((k, o) -> out.put(k, o.getStatus() == OutcomeStatus.COMPLETED));
        return out;
    }

    private static Map<String, Outcome> plainOutcomes() {
        Map<String, Outcome> out = new HashMap<>();
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config())) {
            EventSerde<Outcome> serde = EventSerde.of(Outcome.class, registry);
            TopicScan.forEach(KAFKA.bootstrapServers(), BatonTopics.RESULTS, r -> {
                Outcome o = serde.decode(r);
                if (!o.getUnmatched()) {
                    out.putIfAbsent(o.getRequestId(), o);
                }
            });
        }
        return out;
    }

    private static Map<String, List<String>> plainStats(HistoryStats.GroupBy by, String namespace, long fromMillis) {
        Map<String, Outcome> answers = plainOutcomes();
        Map<String, Histogram> latency = new TreeMap<>();
        Map<String, Long> counts = new TreeMap<>();
        for (Trail t : plainSites(namespace, fromMillis).values()) {
            Outcome o = answers.get(t.requestId);
            String key = switch (by) {
                case QUEUE -> t.queue;
                case TYPE -> t.type;
                case OUTCOME -> o == null ? "(open)" : kind(o);
            };
            counts.merge(key, 1L, Long::sum);
            Histogram h = latency.computeIfAbsent(key, k -> new Histogram(3));
            if (o != null) {
                h.recordValue(Math.max(0, o.getAtMillis() - t.firstAt));
            }
        }
        Map<String, List<String>> out = new TreeMap<>();
        counts.forEach((k, n) -> {
            Histogram h = latency.get(k);
            out.put(k, List.of(Long.toString(n), pct(h, 50), pct(h, 99), pct(h, 100)));
        });
        return out;
    }

    private static String pct(Histogram h, double p) {
        return h.getTotalCount() == 0 ? "-" : Long.toString(h.getValueAtPercentile(p));
    }

    private static boolean wellFormed(byte[] key) {
        try {
            UTF_8.newDecoder().decode(ByteBuffer.wrap(key)); // reports ill-formed bytes where new String(...) replaces them
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", KAFKA.bootstrapServers());
    }
}
