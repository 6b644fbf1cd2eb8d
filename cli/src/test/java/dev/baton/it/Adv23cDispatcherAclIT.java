package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * adv23c: DESIGN §10 gives a dispatcher its own results partition, and §4 answers every accepted
 * request id. With the dispatcher role as {@code baton acl apply} wrote it (READ on every group named
 * {@code baton-dispatcher-*}), one dispatcher principal could commit the results position of
 * another client's group: the other client, restarted, resumed past its own outcomes and never saw
 * them. The role is now scoped to the client ids it names ({@code --client-id}).
 */
class Adv23cDispatcherAclIT {

    private static final String PASSWORD = "adv23c-secret";

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    private static AclCommand acl;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.builder().sasl("admin", "admin-" + PASSWORD).build().start();
        kafka.addUsers(PASSWORD, "victim", "attacker");
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(3), List.of("a")));
        }
        acl = AclCommand.as(kafka, dir);
        acl.apply("--role", "dispatcher", "--principal", "User:victim", "--client-id", "victim-client");
        acl.apply("--role", "dispatcher", "--principal", "User:attacker", "--client-id", "attacker-client");
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldNotLetOneDispatcherSkipAnotherClientsOutcomes() throws Exception {
        List<ActivityOutcome> seen = new CopyOnWriteArrayList<>();
        Map<String, Object> victim = new HashMap<>(as("victim"));
        victim.put("baton.client.id", "victim-client");
        // the victim runs once (its group gets a position), then is down for a while
        DispatchClient.create(victim, seen::add).close();

        // meanwhile an outcome addressed to it is written (as the streams app would)
        int partition = BatonTopics.resultsPartition("victim-client", 3);
        publishOutcome("victim-client", "req-victim-1");

        // another dispatcher moves the victim's committed position past it
        Map<String, Object> attacker = new HashMap<>(as("attacker"));
        attacker.put(ConsumerConfig.GROUP_ID_CONFIG, ClientIds.dispatcherGroup("victim-client"));
        attacker.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        attacker.put("default.api.timeout.ms", 20_000);
        TopicPartition tp = new TopicPartition(BatonTopics.RESULTS, partition);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(attacker, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            assertThatThrownBy(() -> {
                long end = c.endOffsets(List.of(tp)).get(tp);
                c.commitSync(Map.of(tp, new OffsetAndMetadata(end)));
            }).as("another principal committing the victim's results position").isInstanceOf(GroupAuthorizationException.class);
        }

        // the victim restarts: its outcome must reach it
        try (DispatchClient restarted = DispatchClient.create(victim, seen::add)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(seen).extracting(ActivityOutcome::requestId).contains("req-victim-1"));
        }
    }

    /** DESIGN §10: a dispatcher reads its results partition. Kafka ACLs grant a topic, not a partition. */
    @Test
    @org.junit.jupiter.api.Disabled("adv23c: any dispatcher principal reads every client's outcomes (outputs included) on baton.results; "
            + "Kafka ACLs cannot grant one partition, so DESIGN §10's 'read their results partition' needs a results topic per "
            + "client or encrypted outputs: a design change, not a local fix")
    void shouldNotLetOneDispatcherReadAnotherClientsResults() throws Exception {
        publishOutcome("victim-client", "req-victim-secret");
        Map<String, Object> attacker = new HashMap<>(as("attacker"));
        attacker.put("default.api.timeout.ms", 20_000);
        TopicPartition tp = new TopicPartition(BatonTopics.RESULTS, BatonTopics.resultsPartition("victim-client", 3));
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(attacker, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            try {
                for (int i = 0; i < 20 && read.isEmpty(); i++) {
                    c.poll(Duration.ofMillis(250)).forEach(r -> read.add(new String(r.key(), UTF_8)));
                }
            } catch (org.apache.kafka.common.errors.AuthorizationException expected) {
                // what the contract asks for
            }
        }
        assertThat(read).as("another client's results read by the attacker").doesNotContain("victim-client");
    }

    @Test
    void shouldRefuseADispatcherRoleScopedToNoClient() {
        java.io.PrintStream originalErr = System.err;
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        CliRun run;
        try {
            System.setErr(new java.io.PrintStream(err, true, UTF_8));
            run = CliRun.of("acl", "apply", "--role", "dispatcher", "--principal", "User:d", "--dry-run");
        } finally {
            System.setErr(originalErr);
        }
        assertThat(run.exit()).isNotZero();
        assertThat(err.toString(UTF_8)).contains("--client-id");
        CliRun scoped = CliRun.of("acl", "apply", "--role", "dispatcher", "--principal", "User:d", "--client-id", "billing-1", "--dry-run");
        assertThat(scoped.exit()).as(scoped.output()).isZero();
        assertThat(scoped.output()).contains("LITERAL   baton-dispatcher-billing-1").doesNotContain("PREFIXED  baton-dispatcher-");
    }

    private static void publishOutcome(String clientId, String requestId) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka.adminConfig());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.adminConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            Outcome outcome = Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(new SiteRef("adv23c", "wf", "1"))
                    .setRequestId(requestId).setReplyKey(clientId).setAttempt(1).setAtMillis(System.currentTimeMillis()).build();
            producer.send(new ProducerRecord<>(BatonTopics.RESULTS, clientId.getBytes(UTF_8),
                    EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, outcome))).get(30, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Object> as(String user) {
        return kafka.clientConfig(user, PASSWORD);
    }
}
