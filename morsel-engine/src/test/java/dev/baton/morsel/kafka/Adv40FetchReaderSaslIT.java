package dev.baton.morsel.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import dev.baton.embedded.EmbeddedKafka;

/**
 * An adversary of the {@link FetchReader} on a SASL/SCRAM broker with the standard authorizer (issue 30, h/adv40).
 * The contract: the client's security settings keep working as they did with the consumer: a user the ACLs let read
 * reads the same records; a wrong password or a topic the user may not read fails as the consumer fails (the same
 * kind of error, promptly), not as a stall or a missing topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class Adv40FetchReaderSaslIT {

    private static final String TOPIC = "adv40-sasl";
    private static final String SECRET = "adv40-sasl-secret";
    private static final Duration STALL = Duration.ofSeconds(30);

    private EmbeddedKafka kafka;
    private Admin admin;

    @BeforeAll
    void start() throws Exception {
        kafka = EmbeddedKafka.builder().sasl("admin", "admin-secret").build().start();
        kafka.addUsers("reader-secret", "reader");
        admin = Admin.create(kafka.adminConfig());
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1), new NewTopic(SECRET, 1, (short) 1))).all().get();
        admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
                new AccessControlEntry("User:reader", "*", AclOperation.READ, AclPermissionType.ALLOW)))).all().get();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(kafka.adminConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 200; i++) {
                p.send(new ProducerRecord<>(TOPIC, 0, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8)));
                p.send(new ProducerRecord<>(SECRET, 0, ("k" + i).getBytes(StandardCharsets.UTF_8), ("s" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        // The user's credentials and ACL reach the broker asynchronously.
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> viaConsumer(kafka.clientConfig("reader", "reader-secret"), new OffsetRange(TOPIC, 0, 0, 200)).size() == 200);
    }

    @AfterAll
    void stop() {
        admin.close();
        kafka.close();
    }

    /** Contract: the super user and a user with READ on the topic read what the consumer reads. */
    @Test
    void usersTheAclsLetReadReadAsTheConsumer() {
        for (Map<String, Object> client : List.of(kafka.adminConfig(), kafka.clientConfig("reader", "reader-secret"))) {
            OffsetRange range = new OffsetRange(TOPIC, 0, 13, 187);
            try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(client), STALL)) {
                assertEquals(viaConsumer(client, range), viaReader(reader, range), "as " + client.get("sasl.jaas.config"));
            }
        }
    }

    /** Contract: a wrong password fails the scan promptly with an authentication error, as the consumer's poll does. */
    @Test
    void aWrongPasswordFailsPromptlyWithAnAuthenticationError() {
        Map<String, Object> client = kafka.clientConfig("reader", "not-the-password");
        assertThrows(AuthenticationException.class, () -> viaConsumer(client, new OffsetRange(TOPIC, 0, 0, 10)));
        try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(client), STALL)) {
            assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(AuthenticationException.class, () -> viaReader(reader, new OffsetRange(TOPIC, 0, 0, 10))));
        }
    }

    /**
     * Contract: a topic the user may not read fails as the consumer fails: a TopicAuthorizationException, promptly.
     * What the reader does (expected): its metadata (all topics) leaves out the topics the user may not describe, so it
     * finds no leader, refreshes metadata until the stall limit, and then fails with "no leader known ...: does the topic
     * exist?", which sends an operator looking for a missing topic instead of a missing ACL.
     */
    @Test
    void aTopicTheUserMayNotReadFailsWithAnAuthorizationErrorAsTheConsumerDoes() {
        Map<String, Object> client = kafka.clientConfig("reader", "reader-secret");
        OffsetRange range = new OffsetRange(SECRET, 0, 0, 10);
        assertThrows(TopicAuthorizationException.class, () -> viaConsumer(client, range));
        try (FetchReader reader = new FetchReader(ScanConsumers.readerConfig(client), STALL)) {
            long start = System.nanoTime();
            RuntimeException e = assertThrows(RuntimeException.class, () -> viaReader(reader, range));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertTrue(e instanceof TopicAuthorizationException,
                    "the reader failed after " + seconds + " s with " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static List<String> viaReader(FetchReader reader, OffsetRange r) {
        List<String> out = new ArrayList<>();
        reader.scan(r, v -> out.add(v.offset() + ":" + text(v.key()) + "=" + text(v.value())), () -> false);
        return out;
    }

    private static List<String> viaConsumer(Map<String, Object> client, OffsetRange r) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<ByteBuffer, ByteBuffer> consumer = new KafkaConsumer<>(ScanConsumers.readerConfig(new HashMap<>(client)),
                new ByteBufferDeserializer(), new ByteBufferDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, r.from());
            long deadline = System.nanoTime() + STALL.toNanos();
            while (consumer.position(tp) < r.to() && System.nanoTime() < deadline) {
                for (ConsumerRecord<ByteBuffer, ByteBuffer> c : consumer.poll(Duration.ofMillis(100))) {
                    if (c.offset() < r.to()) {
                        out.add(c.offset() + ":" + text(c.key()) + "=" + text(c.value()));
                    }
                }
            }
        }
        return out;
    }

    private static String text(ByteBuffer b) {
        return b == null ? "null" : StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }
}
