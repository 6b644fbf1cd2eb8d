package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.history.HistoryStats;
import dev.baton.morsel.history.Replay;
import dev.baton.morsel.history.SiteTrail;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary (adv20): the history scans over topics whose logs no longer start at offset 0, as after retention (DESIGN §3:
 * {@code baton.history} has a retention) or {@code deleteRecords}. Every scan split a partition as
 * {@code [begin, min(end, begin + Long.MAX_VALUE))}, which overflows once {@code begin > 0}: replay, stats and a
 * workflow's timeline all threw {@code IllegalArgumentException} ("an offset range needs ... 0 <= from <= to").
 */
class Adv20RetentionIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String REGISTRY = "kafka://";

    /**
     * baton.history partition 0: a/w/1 dispatched (r1) and leased, then a/w/2 dispatched (r2), a/w/3 dispatched (r3);
     * baton.results partition 0: an outcome of r9 (no site's), then r3 completed. Retention then deletes the first two
     * records of each: a/w/1 and r9's outcome are gone.
     */
    @BeforeAll
    static void writeThenExpire() throws Exception {
        Map<String, Object> config = config();
        try (Admin admin = Admin.create(config)) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q"), Map.of()));
        }
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            EventSerde<Outcome> outcomes = EventSerde.of(Outcome.class, registry);
            send(producer, BatonTopics.HISTORY, "a/w/1", history.encode(BatonTopics.HISTORY, event("1", HistoryKind.DISPATCHED, "r1", 100)));
            send(producer, BatonTopics.HISTORY, "a/w/1", history.encode(BatonTopics.HISTORY, event("1", HistoryKind.LEASED, null, 110)));
            send(producer, BatonTopics.HISTORY, "a/w/2", history.encode(BatonTopics.HISTORY, event("2", HistoryKind.DISPATCHED, "r2", 120)));
            send(producer, BatonTopics.HISTORY, "a/w/3", history.encode(BatonTopics.HISTORY, event("3", HistoryKind.DISPATCHED, "r3", 130)));
            send(producer, BatonTopics.RESULTS, "client", outcomes.encode(BatonTopics.RESULTS, outcome("r9", 90)));
            send(producer, BatonTopics.RESULTS, "client", outcomes.encode(BatonTopics.RESULTS, outcome("r3", 150)));
            producer.flush();
        }
        try (Admin admin = Admin.create(config)) {
            admin.deleteRecords(Map.of(new TopicPartition(BatonTopics.HISTORY, 0), RecordsToDelete.beforeOffset(2),
                    new TopicPartition(BatonTopics.RESULTS, 0), RecordsToDelete.beforeOffset(1))).all().get();
        }
    }

    @Test
    void shouldReplayWhatRetentionLeftOfHistory() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                Replay.Report r = Replay.analyse(log, HistoryLog.Scope.ALL, "baton-streams");
                assertThat(r.sites()).as("dispatched sites at %d threads", threads).isEqualTo(2);
                assertThat(r.resolved()).as("resolved at %d threads", threads).isEqualTo(1);
                assertThat(r.dangling()).extracting(SiteTrail::siteKey, SiteTrail::requestId).as("dangling at %d threads", threads)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("a/w/2", "r2"));
                assertThat(r.byOutcome()).isEqualTo(Map.of("completed", 1));
            }
        }
    }

    @Test
    void shouldCountStatsOverWhatRetentionLeft() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                Map<String, HistoryStats.Group> groups = HistoryStats.compute(log, HistoryLog.Scope.ALL, HistoryStats.GroupBy.OUTCOME);
                assertThat(groups.keySet()).as("at %d threads", threads).containsExactlyInAnyOrder("completed", "(open)");
                assertThat(groups.get("completed").count()).isEqualTo(1);
                assertThat(groups.get("completed").percentile(100)).isEqualTo("20");
                assertThat(groups.get("(open)").count()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldPrintTheTimelineRetentionLeft() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                assertThat(log.workflow("w", "a")).extracting(e -> e.getSite().getActivityId()).as("at %d threads", threads)
                        .containsExactly("2", "3");
            }
        }
    }

    private static HistoryEvent event(String activity, HistoryKind kind, String request, long at) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(new SiteRef("a", "w", activity)).setAttempt(1).setRequestId(request)
                .setQueue(request == null ? null : "q").setActivityType(request == null ? null : "t").setAtMillis(at).build();
    }

    private static Outcome outcome(String request, long at) {
        return Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(new SiteRef("a", "w", "x")).setRequestId(request)
                .setReplyKey("client").setAttempt(1).setAtMillis(at).build();
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, key.getBytes(UTF_8), value)).get();
    }

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", KAFKA.bootstrapServers());
    }
}
