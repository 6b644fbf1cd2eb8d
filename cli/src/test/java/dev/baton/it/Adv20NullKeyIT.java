package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;
import java.util.Map;

import dev.baton.embedded.EmbeddedKafkaExtension;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversary (adv20): a history record without a key (a buggy producer's; Baton writes every one under its site key). The
 * sites scan folds such records into one site whose key is null (its composition's own contract), and replay then threw
 * {@code NullPointerException}: looking the null key up among the live sites when the changelog is gone (an immutable
 * empty map, the very case replay is for), and sorting the dangling sites by key when the changelog exists.
 */
class Adv20NullKeyIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String REGISTRY = "kafka://";
    /** An application whose sites changelog exists and holds one live site that is not in history. */
    private static final String WITH_CHANGELOG = "adv20-app";

    @BeforeAll
    static void writeHistory() throws Exception {
        Map<String, Object> config = config();
        try (Admin admin = Admin.create(config)) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(2), List.of("q"), Map.of()));
            admin.createTopics(List.of(new NewTopic(WITH_CHANGELOG + "-sites-changelog", 1, (short) 1))).all().get();
        }
        try (SchemaRegistry registry = SchemaRegistry.forUrl(REGISTRY, config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            EventSerde<HistoryEvent> history = EventSerde.of(HistoryEvent.class, registry);
            producer.send(new ProducerRecord<>(BatonTopics.HISTORY, 0, null, history.encode(BatonTopics.HISTORY, dispatched("1", "n1")))).get();
            producer.send(new ProducerRecord<>(BatonTopics.HISTORY, 0, "a/w/2".getBytes(UTF_8),
                    history.encode(BatonTopics.HISTORY, dispatched("2", "r2")))).get();
            producer.send(new ProducerRecord<>(WITH_CHANGELOG + "-sites-changelog", 0, "a/w/9".getBytes(UTF_8), new byte[] {1})).get();
        }
    }

    @Test
    void shouldReportAKeylessDispatchWhenTheChangelogIsGone() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                Replay.Report r = Replay.analyse(log, HistoryLog.Scope.ALL, "baton-streams");
                assertThat(r.sites()).as("at %d threads", threads).isEqualTo(2);
                assertThat(r.dangling()).extracting(SiteTrail::siteKey, SiteTrail::requestId).as("at %d threads", threads)
                        .containsExactly(tuple(null, "n1"), tuple("a/w/2", "r2"));
            }
        }
    }

    @Test
    void shouldReportAKeylessDispatchBesideALiveChangelog() {
        for (int threads = 1; threads <= 2; threads++) {
            try (HistoryLog log = new HistoryLog(config(), REGISTRY, threads)) {
                Replay.Report r = Replay.analyse(log, HistoryLog.Scope.ALL, WITH_CHANGELOG);
                assertThat(r.live()).isZero();
                assertThat(r.dangling()).extracting(SiteTrail::siteKey, SiteTrail::requestId).as("at %d threads", threads)
                        .containsExactly(tuple(null, "n1"), tuple("a/w/2", "r2"));
            }
        }
    }

    private static HistoryEvent dispatched(String activity, String request) {
        return HistoryEvent.newBuilder().setKind(HistoryKind.DISPATCHED).setSite(new SiteRef("a", "w", activity)).setAttempt(1)
                .setRequestId(request).setQueue("q").setActivityType("t").setAtMillis(100).build();
    }

    private static Map<String, Object> config() {
        return Map.of("bootstrap.servers", KAFKA.bootstrapServers());
    }
}
