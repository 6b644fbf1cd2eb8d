package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.node.ExchangeSecret;
import dev.baton.morsel.node.protocol.AcceptedExecution;
import dev.baton.morsel.node.protocol.GroupSum;
import dev.baton.morsel.node.protocol.MergeStep;
import dev.baton.morsel.node.protocol.MergedRows;
import dev.baton.morsel.node.protocol.ScanDone;
import dev.baton.morsel.node.protocol.ScanStep;
import dev.baton.morsel.node.protocol.Split;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversary round 23: the engine node as a confused deputy. DESIGN §10: a dispatcher writes {@code baton.dispatch} and
 * reads its results; the operator grants an engine node READ on the source topics its jobs aggregate. A principal with
 * only the dispatcher role dispatches an {@code engine.scan} of a topic it may not read into a running job's exchange,
 * then an {@code engine.merge} naming the execution its scan answered, and was handed the topic's GROUP BY answer. A
 * node now runs only the steps that carry the secret their job wrote into its exchange ({@code ExchangeSecret}), which
 * a dispatcher cannot read.
 */
class Adv23eEngineDeputyIT {

    private static final String PASSWORD = "s3cret-for-tests";
    private static final String SECRET = "adv23e-secret-ledger";
    private static final String EXCHANGE = "baton.exchange.victim";
    /** Records in the secret topic's partition 0 (of 3): numbers a step without the secret must not be told. */
    private static final int RECORDS = 137;
    private static final String GUESS = "0".repeat(64);

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    /** Shared by both cases, as an operator runs them: the streams app and an engine node with their own roles. */
    private static BatonStreamsApp app;
    private static EngineNode node;
    /** A principal with only the dispatcher role. */
    private static DispatchClient dispatcher;

    @BeforeAll
    static void start() throws Exception {
        SelfSignedTls tls = SelfSignedTls.generate(dir);
        kafka = EmbeddedKafka.builder().saslOverTls("admin", "admin-" + PASSWORD, tls.keyStore(), tls.trustStore(), tls.password())
                .build().start();
        kafka.addUsers(PASSWORD, "dispatcher", "streams", "engine");
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(3), List.of(EngineNode.QUEUE)));
            // A job's running exchange, and a source only the engine may read.
            admin.createTopics(Set.of(new NewTopic(EXCHANGE, 1, (short) 1), new NewTopic(SECRET, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, SECRET, PatternType.LITERAL),
                    new AccessControlEntry("User:engine", "*", AclOperation.READ, AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS);
        }
        ExchangeSecret.write(kafka.adminConfig(), EXCHANGE, ExchangeSecret.create()); // as the running job wrote it
        AclCommand acl = AclCommand.as(kafka, dir);
        acl.apply("--role", "dispatcher", "--principal", "User:dispatcher", "--client-id", "nosy-client");
        acl.apply("--role", "streams-app", "--principal", "User:streams");
        acl.apply("--role", "engine", "--principal", "User:engine");
        acl.apply("--role", "worker", "--principal", "User:engine", "--queue", EngineNode.QUEUE);
        Map<String, Object> admin = new HashMap<>(kafka.adminConfig());
        admin.put("max.in.flight.requests.per.connection", 1); // KAFKA-15591, as in DistributedGroupByIT
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(admin, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (long i = 0; i < RECORDS; i++) {
                sends.add(p.send(new ProducerRecord<>(SECRET, 0, bytes(i % 2), bytes(1_000 + i))));
            }
            for (Future<?> f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        Map<String, Object> streams = new HashMap<>(kafka.clientConfig("streams", PASSWORD));
        streams.put("state.dir", Files.createDirectories(dir.resolve("streams-state")).toString());
        app = new BatonStreamsApp(streams, new SimpleMeterRegistry()).start();
        node = EngineNode.start("deputy-node", kafka.clientConfig("engine", PASSWORD), 1);
        await().atMost(Duration.ofSeconds(60)).until(app::isRunning);
        Map<String, Object> client = new HashMap<>(kafka.clientConfig("dispatcher", PASSWORD));
        client.put("baton.client.id", "nosy-client");
        dispatcher = DispatchClient.create(client, o -> { });
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable running : new AutoCloseable[] {dispatcher, node, app, kafka}) {
            if (running != null) {
                try {
                    running.close();
                } catch (Exception e) {
                    throw new IllegalStateException("could not close " + running, e);
                }
            }
        }
    }

    @Test
    void aDispatcherCannotAggregateATopicItMayNotReadThroughTheEngine() throws Exception {
        Map<String, Object> me = kafka.clientConfig("dispatcher", PASSWORD);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(me, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(SECRET, 0)));
            consumer.seekToBeginning(consumer.assignment());
            assertThatThrownBy(() -> {
                for (int i = 0; i < 50; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).as("the dispatcher reading the secret").isInstanceOf(TopicAuthorizationException.class);
        }

        ScanStep scan = ScanStep.newBuilder().setVersion(2).setJob("victim").setExchangePartitions(1)
                .setSplit(new Split(SECRET, 0, 0L, 100L)).setSecret(GUESS).build(); // it cannot read the job's
        ActivityOutcome scanned = dispatcher.dispatch(step("nosy", "nosy-scan", "engine.scan", bytes(scan.toByteBuffer())))
                .get(120, TimeUnit.SECONDS);
        if (scanned.completed()) {
            String execution = ScanDone.fromByteBuffer(ByteBuffer.wrap(scanned.output())).getExecution().toString();
            MergeStep merge = MergeStep.newBuilder().setVersion(2).setJob("victim").setExchangePartition(0)
                    .setAccepted(List.of(new AcceptedExecution(new Split(SECRET, 0, 0L, 100L), execution))).setSecret(GUESS).build();
            ActivityOutcome merged = dispatcher.dispatch(step("nosy", "nosy-merge", "engine.merge", bytes(merge.toByteBuffer())))
                    .get(120, TimeUnit.SECONDS);
            List<String> leaked = new ArrayList<>();
            if (merged.completed()) {
                for (GroupSum g : MergedRows.fromByteBuffer(ByteBuffer.wrap(merged.output())).getGroups()) {
                    leaked.add(g.getKey() + "=" + g.getSum() + "/" + g.getCount());
                }
            }
            assertThat(leaked).as("the secret topic's GROUP BY, handed to a principal that may not read it").isEmpty();
        }
        assertThat(scanned.completed()).as("a scan of a topic the dispatcher may not read: " + scanned).isFalse();
    }

    /**
     * Adversary round 24 (h/adv24a), finding 3: a node checked a step's structure against the cluster before its secret,
     * and the refusal named what it found: a dispatcher-only principal sending scans with a guessed secret and any topic
     * was told whether the topic exists, its partition count and each partition's end offset, for topics it may not even
     * describe. The secret is now checked first.
     */
    @Test
    void aDispatcherLearnsNothingOfATopicItMayNotDescribeFromAStepWithoutTheJobsSecret() throws Exception {
        Map<String, Object> me = kafka.clientConfig("dispatcher", PASSWORD);
        try (Admin asDispatcher = Admin.create(me)) {
            assertThatThrownBy(() -> asDispatcher.describeTopics(List.of(SECRET)).allTopicNames().get(30, TimeUnit.SECONDS))
                    .as("the dispatcher describing the secret topic").hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        Map<String, String> reasons = new LinkedHashMap<>();
        reasons.put("end offset", probe("end", new Split(SECRET, 0, 0L, 1_000_000_000L)));
        reasons.put("partition count", probe("count", new Split(SECRET, 99, 0L, 1L)));
        reasons.put("existence", probe("exists", new Split("adv24a-no-such-topic", 0, 0L, 1L)));
        assertThat(reasons).as("what a step without the job's secret was told").allSatisfy((what, reason) -> assertThat(reason)
                .as(what).contains("does not carry the secret").doesNotContain("offset " + RECORDS).doesNotContain("has 3")
                .doesNotContain("does not exist"));
    }

    private static String probe(String id, Split split) throws Exception {
        ScanStep scan = ScanStep.newBuilder().setVersion(2).setJob("victim").setExchangePartitions(1).setSplit(split)
                .setSecret(GUESS).build();
        ActivityOutcome o = dispatcher.dispatch(step("probe", id, "engine.scan", bytes(scan.toByteBuffer()))).get(120, TimeUnit.SECONDS);
        assertThat(o.completed()).as(o.toString()).isFalse();
        return o.reason();
    }

    private static ActivityRequest step(String workflow, String id, String type, byte[] input) {
        return ActivityRequest.builder().site("engine", workflow, id).queue(EngineNode.QUEUE).activityType(type)
                .input(input, "application/vnd.baton.engine-step+avro").heartbeat(Duration.ofSeconds(2)).build();
    }
}
