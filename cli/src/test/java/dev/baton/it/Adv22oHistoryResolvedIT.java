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
 * Adversary (adv22o), the fix of {@link Adv22oTrimmedResultsIT} read closely: once {@code baton.results} was trimmed, a
 * dangling candidate counts as resolved only if the latest run-state event of its own request is an outcome. A run in
 * backoff, retried, re-delivered after a transport loss, or run again under a new request after a refusal of a third one
 * stays dangling; a completed, terminally failed or transport-exhausted run, or one a late lease followed, does not.
 */
class Adv22oHistoryResolvedIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String REGISTRY = "kafka://";

    @BeforeAll
    static void write() throws Exception {
        Map<String, Object> config = Map.of("bootstrap.servers", KAFKA.bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(1), List.of("q"), Map.of()));
        }
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> h = EventSerde.of(HistoryEvent.class, registry);
            run(producer, h, "done", "r1", ev(HistoryKind.DISPATCHED, "r1", null), ev(HistoryKind.LEASED, "r1", null),
                    ev(HistoryKind.COMPLETED, "r1", null));
            run(producer, h, "backoff", "r2", ev(HistoryKind.DISPATCHED, "r2", null), ev(HistoryKind.LEASED, "r2", null),
                    ev(HistoryKind.FAILED, "r2", "retryable: boom"), ev(HistoryKind.RETRY_SCHEDULED, "r2", "attempt 2 in 1000 ms"));
            run(producer, h, "retried", "r3", ev(HistoryKind.DISPATCHED, "r3", null), ev(HistoryKind.FAILED, "r3", "retryable: boom"),
                    ev(HistoryKind.RETRY_SCHEDULED, "r3", "attempt 2 in 1 ms"), ev(HistoryKind.DISPATCHED, "r3", null));
            run(producer, h, "lost", "r4", ev(HistoryKind.DISPATCHED, "r4", null), ev(HistoryKind.LEASED, "r4", null),
                    ev(HistoryKind.TRANSPORT_LOST, "r4", "lost: no heartbeat (loss 1 of budget 3)"));
            run(producer, h, "exhausted", "r5", ev(HistoryKind.DISPATCHED, "r5", null), ev(HistoryKind.LEASED, "r5", null),
                    ev(HistoryKind.TRANSPORT_LOST, "r5", "transport-exhausted: no heartbeat"));
            run(producer, h, "refused", "r7", ev(HistoryKind.DISPATCHED, "r6", null), ev(HistoryKind.COMPLETED, "r6", null),
                    ev(HistoryKind.DISPATCHED, "r7", null), ev(HistoryKind.UNAVAILABLE, "r8", "unavailable: unknown queue 'x'"));
            run(producer, h, "failed", "r9", ev(HistoryKind.DISPATCHED, "r9", null), ev(HistoryKind.FAILED, "r9", "terminal: no"));
            run(producer, h, "late", "r10", ev(HistoryKind.DISPATCHED, "r10", null), ev(HistoryKind.COMPLETED, "r10", null),
                    ev(HistoryKind.LATE_LEASE_IGNORED, null, "arrived after its generation ended"));
            // one outcome of another request, then retention: baton.results no longer starts at 0 and holds none of these
            Outcome other = Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(new SiteRef("a", "w", "other"))
                    .setRequestId("r0").setReplyKey("client").setAttempt(1).setAtMillis(1).build();
            producer.send(new ProducerRecord<>(BatonTopics.RESULTS, 0, "client".getBytes(UTF_8),
                    EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, other))).get();
        }
        try (Admin admin = Admin.create(config)) {
            admin.deleteRecords(Map.of(new TopicPartition(BatonTopics.RESULTS, 0), RecordsToDelete.beforeOffset(1))).all().get();
        }
    }

    @Test
    void shouldCountOnlyARunWhoseLatestStateIsAnOutcomeAsResolved() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(Map.of("bootstrap.servers", KAFKA.bootstrapServers()), REGISTRY, threads)) {
                Replay.Report r = Replay.analyse(log, HistoryLog.Scope.ALL, "baton-streams");
                assertThat(r.sites()).isEqualTo(8);
                assertThat(r.dangling()).extracting(SiteTrail::siteKey).as("at %d threads", threads)
                        .containsExactly("a/w/backoff", "a/w/lost", "a/w/refused", "a/w/retried");
                assertThat(r.resolved()).isEqualTo(4);
                assertThat(r.byOutcome()).isEqualTo(Map.of("resolved (outcome only in history)", 4));
            }
        }
    }

    private record Ev(HistoryKind kind, String request, String reason) {
    }

    private static Ev ev(HistoryKind kind, String request, String reason) {
        return new Ev(kind, request, reason);
    }

    private static void run(KafkaProducer<byte[], byte[]> producer, EventSerde<HistoryEvent> serde, String activity, String unused,
                            Ev... events) throws Exception {
        long at = 100;
        for (Ev e : events) {
            HistoryEvent event = HistoryEvent.newBuilder().setKind(e.kind()).setSite(new SiteRef("a", "w", activity)).setAttempt(1)
                    .setRequestId(e.request()).setReason(e.reason()).setQueue("q").setActivityType("t").setAtMillis(at++).build();
            producer.send(new ProducerRecord<>(BatonTopics.HISTORY, 0, ("a/w/" + activity).getBytes(UTF_8),
                    serde.encode(BatonTopics.HISTORY, event))).get();
        }
    }
}
