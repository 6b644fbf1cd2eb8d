package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.streams.BatonStreamsApp;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DESIGN §10 on a broker with SASL/SCRAM over TLS and the StandardAuthorizer: each role, holding
 * only the ACLs {@code baton acl apply} gives it, runs the core loop, and is denied every write and
 * read it should not make. The certificate is self-signed, made by keytool in this test, and reaches
 * every client only through pass-through Kafka settings.
 */
class SecurityIT {

    private static final String PASSWORD = "s3cret-for-tests";
    private static final List<String> ROLE_USERS = List.of("dispatcher", "worker-a", "streams", "engine");

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    private static AclCommand acl;

    @BeforeAll
    static void start() throws Exception {
        SelfSignedTls tls = SelfSignedTls.generate(dir);
        kafka = EmbeddedKafka.builder().saslOverTls("admin", "admin-" + PASSWORD, tls.keyStore(), tls.trustStore(), tls.password())
                .build().start();
        kafka.addUsers(PASSWORD, ROLE_USERS.toArray(String[]::new));
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            new TopicCreator(admin).create(BatonTopics.all(TopicLayout.defaults().withPartitions(3), List.of("a", "b")));
        }
        acl = AclCommand.as(kafka, dir);
        acl.apply("--role", "dispatcher", "--principal", "User:dispatcher", "--client-id", "secure-client");
        acl.apply("--role", "worker", "--principal", "User:worker-a", "--queue", "a");
        acl.apply("--role", "streams-app", "--principal", "User:streams");
        acl.apply("--role", "engine", "--principal", "User:engine");
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldResolveAnActivityWhenEveryRoleHasOnlyItsOwnAcls() throws Exception {
        Map<String, Object> streams = new HashMap<>(as("streams"));
        streams.put("state.dir", Files.createDirectories(dir.resolve("streams-state")).toString());
        try (BatonStreamsApp app = new BatonStreamsApp(streams, new SimpleMeterRegistry()).start();
             Worker worker = Worker.start(WorkerOptions.builder().kafkaConfig(as("worker-a")).workerId("secure-worker").queues("a")
                     .handler("echo", (ctx, input) -> ("secured " + new String(input, UTF_8)).getBytes(UTF_8)).build())) {
            await().atMost(Duration.ofSeconds(60)).until(app::isRunning);
            Map<String, Object> client = new HashMap<>(as("dispatcher"));
            client.put("baton.client.id", "secure-client");
            try (DispatchClient dispatcher = DispatchClient.create(client, o -> { })) {
                ActivityOutcome outcome = dispatcher.dispatch(ActivityRequest.builder().site("sec", "wf", "1").queue("a").activityType("echo")
                        .input("hello".getBytes(UTF_8), "text/plain").build()).get(90, TimeUnit.SECONDS);
                assertThat(outcome.completed()).as(outcome.toString()).isTrue();
                assertThat(outcome.outputAsString()).isEqualTo("secured hello");
            }
        }
    }

    @Test
    void shouldDenyAWorkerEveryWriteThatWouldForgeWorkAndAnotherQueuesTasks() {
        assertWriteDenied("worker-a", BatonTopics.DISPATCH);
        assertWriteDenied("worker-a", BatonTopics.RESULTS);
        assertWriteDenied("worker-a", BatonTopics.HISTORY);
        assertWriteDenied("worker-a", BatonTopics.tasks("a"));
        assertWriteDenied("worker-a", BatonTopics.WORKER_CONTROL);
        assertReadDenied("worker-a", BatonTopics.tasks("b"));
        assertReadDenied("worker-a", BatonTopics.DISPATCH);
        assertReadDenied("worker-a", BatonTopics.RESULTS);
        assertWriteAllowed("worker-a", BatonTopics.WORKER_EVENTS);
    }

    @Test
    void shouldDenyADispatcherTasksWorkerEventsAndResultsWrites() {
        assertReadDenied("dispatcher", BatonTopics.tasks("a"));
        assertReadDenied("dispatcher", BatonTopics.HISTORY);
        assertWriteDenied("dispatcher", BatonTopics.RESULTS);
        assertWriteDenied("dispatcher", BatonTopics.WORKER_EVENTS);
        assertWriteDenied("dispatcher", BatonTopics.tasks("a"));
        assertWriteAllowed("dispatcher", BatonTopics.DISPATCH);
    }

    @Test
    void shouldDenyTheEngineAndTheStreamsAppWhatIsNotTheirs() {
        assertWriteDenied("engine", BatonTopics.DISPATCH);
        assertWriteDenied("engine", BatonTopics.RESULTS);
        assertReadDenied("engine", BatonTopics.tasks("a"));
        assertWriteDenied("streams", BatonTopics.DISPATCH);
        assertWriteDenied("streams", BatonTopics.WORKERS);
        assertReadDenied("streams", BatonTopics.RESULTS);
    }

    @Test
    void shouldRefuseAWrongPasswordAndAClientThatDoesNotTrustTheCertificate() {
        Map<String, Object> wrongPassword = new HashMap<>(kafka.clientConfig("worker-a", "guessed"));
        assertThatThrownBy(() -> describeCluster(wrongPassword)).hasRootCauseInstanceOf(SaslAuthenticationException.class);

        Map<String, Object> noTrust = new HashMap<>(as("worker-a"));
        noTrust.keySet().removeIf(k -> k.startsWith("ssl.truststore"));
        assertThatThrownBy(() -> describeCluster(noTrust)).hasCauseInstanceOf(SslAuthenticationException.class)
                .hasStackTraceContaining("PKIX path building failed");
    }

    @Test
    void shouldPrintADryRunAndRejectAnUnknownRole() {
        CliRun dry = CliRun.of("acl", "apply", "--role", "worker", "--principal", "User:w", "--queue", "q", "--dry-run");
        assertThat(dry.exit()).isZero();
        assertThat(dry.output()).contains("baton.tasks.q", "baton-worker-q", "baton-worker.q.", "dry run, nothing written");
        assertThat(CliRun.of("acl", "apply", "--role", "janitor", "--principal", "User:w", "--dry-run").exit()).isNotZero();
        assertThat(CliRun.of("acl", "apply", "--role", "worker", "--principal", "User:w", "--dry-run").exit()).isNotZero();
    }

    private static void assertWriteDenied(String user, String topic) {
        assertThatThrownBy(() -> produce(user, topic)).as("%s writing %s", user, topic)
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    private static void assertWriteAllowed(String user, String topic) {
        try {
            produce(user, topic);
        } catch (Exception e) {
            throw new AssertionError(user + " should be allowed to write " + topic, e);
        }
    }

    private static void assertReadDenied(String user, String topic) {
        Map<String, Object> config = new HashMap<>(as(user));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            assertThatThrownBy(() -> {
                for (int i = 0; i < 50; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).as("%s reading %s", user, topic).isInstanceOf(TopicAuthorizationException.class);
        }
    }

    /** A record that no decoder would accept: if a denial failed, it would be dead-lettered, not acted on. */
    private static void produce(String user, String topic) throws Exception {
        Map<String, Object> config = new HashMap<>(as(user));
        config.put("max.block.ms", 20_000);
        config.put("delivery.timeout.ms", 20_000);
        config.put("request.timeout.ms", 10_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, "probe".getBytes(UTF_8), "not-avro".getBytes(UTF_8))).get(30, TimeUnit.SECONDS);
        }
    }

    private static void describeCluster(Map<String, Object> config) throws Exception {
        config.put("default.api.timeout.ms", 10_000);
        config.put("request.timeout.ms", 5_000);
        try (Admin admin = Admin.create(config)) {
            admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Object> as(String user) {
        return kafka.clientConfig(user, PASSWORD);
    }
}
