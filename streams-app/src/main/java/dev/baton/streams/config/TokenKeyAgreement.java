package dev.baton.streams.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Every instance of one application id must derive site secrets from the same {@code token.key}. Under at-least-once a
 * crash can lose a row's write after its task went out; the instance that reads the dispatch again re-creates the row's
 * secret from its own key, and with another key it refuses the delivered token as forged and runs the request again: a
 * second, different outcome for one request id (h/adv23x). Kafka Streams gives instances no place to compare settings,
 * so they compare a fingerprint of the key (a hash, never the key) in a topic of their own,
 * {@code <application.id>-token-key}: one partition, kept for ever.
 *
 * <p>Each record is a {@code claim} or a {@code rotate} of a fingerprint. The key in force is the last rotation's, or,
 * before any rotation, the first claim's (so two instances starting at once with different keys agree on the first that
 * wrote). An instance with no key in force claims its own; an instance whose key is not the one in force refuses to
 * start. {@code token.key.rotate=true} makes the instance's key the one in force, only while no instance of the
 * application id is running (its group has no members): rotating under running instances is the very mismatch above.
 */
public final class TokenKeyAgreement {

    static final String CLAIM = "claim";
    static final String ROTATE = "rotate";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private TokenKeyAgreement() {
    }

    /** The topic where the instances of {@code applicationId} keep their key's fingerprint. */
    public static String topic(String applicationId) {
        return applicationId + "-token-key";
    }

    /** A fingerprint of {@code key}: 8 bytes of a SHA-256, in hex; it says whether two keys are equal and nothing else. */
    public static String fingerprint(byte[] key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("baton token.key fingerprint".getBytes(UTF_8));
            byte[] digest = sha.digest(key);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The fingerprint in force after {@code records} ({@code [kind, fingerprint]} in log order), if any. */
    static Optional<String> inForce(List<String[]> records) {
        String firstClaim = null;
        String lastRotation = null;
        for (String[] r : records) {
            if (ROTATE.equals(r[0])) {
                lastRotation = r[1];
            } else if (CLAIM.equals(r[0]) && firstClaim == null) {
                firstClaim = r[1];
            }
        }
        return Optional.ofNullable(lastRotation != null ? lastRotation : firstClaim);
    }

    /**
     * Makes sure {@code key} is the key in force for {@code applicationId}, claiming it when none is, rotating to it when
     * {@code rotate} and no instance runs.
     *
     * @throws IllegalStateException naming both fingerprints when another key is in force, or a rotation is refused
     */
    public static void require(Map<String, Object> clientConfig, String applicationId, byte[] key, boolean rotate) {
        String own = fingerprint(key);
        String topic = topic(applicationId);
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            createTopic(admin, topic);
            List<String[]> records = read(clientConfig, topic);
            Optional<String> inForce = inForce(records);
            if (inForce.isEmpty() || rotate && !inForce.get().equals(own)) {
                if (inForce.isPresent()) {
                    requireNoInstanceRunning(admin, applicationId, own, inForce.get());
                }
                write(clientConfig, topic, inForce.isEmpty() ? CLAIM : ROTATE, own);
                inForce = inForce(read(clientConfig, topic));
            }
            if (!inForce.map(own::equals).orElse(false)) {
                throw new IllegalStateException("token.key differs from the one the instances of application id '" + applicationId
                        + "' use (its fingerprint is " + own + ", theirs " + inForce.orElse("unknown") + ", kept in topic " + topic
                        + "): every instance must have the same key, or a token one issued is refused by another as forged. "
                        + "Start this instance with their key; to change the key, stop every instance and start one with "
                        + "token.key.rotate=true");
            }
        }
    }

    private static void requireNoInstanceRunning(Admin admin, String applicationId, String own, String inForce) {
        ConsumerGroupDescription group;
        try {
            group = admin.describeConsumerGroups(List.of(applicationId)).describedGroups().get(applicationId)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("token.key.rotate=true: cannot tell whether instances of application id '" + applicationId
                    + "' are running (" + e + "), so the key in force (" + inForce + ") is not replaced by " + own, e);
        }
        if (!group.members().isEmpty()) {
            throw new IllegalStateException("token.key.rotate=true: " + group.members().size() + " instance(s) of application id '"
                    + applicationId + "' are running with the key in force (" + inForce + "); stop every instance before rotating to "
                    + own);
        }
    }

    private static void createTopic(Admin admin, String topic) {
        NewTopic spec = new NewTopic(topic, Optional.of(1), Optional.empty())
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, "-1", TopicConfig.RETENTION_BYTES_CONFIG, "-1"));
        try {
            admin.createTopics(List.of(spec)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create " + topic + " to compare token.key fingerprints: " + e.getCause(), e);
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + topic + " to compare token.key fingerprints: " + e, e);
        }
    }

    private static List<String[]> read(Map<String, Object> clientConfig, String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        List<String[]> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), TIMEOUT).get(tp);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (consumer.position(tp, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot read " + topic + " to its end (" + end + ") within " + TIMEOUT.toSeconds() + " s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(new String[] {r.key(), r.value()});
                }
            }
        }
        return records;
    }

    private static void write(Map<String, Object> clientConfig, String topic, String kind, String fingerprint) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ClientConfigs.durableProducer(clientConfig), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, kind, fingerprint)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing this instance's token.key fingerprint to " + topic, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write this instance's token.key fingerprint to " + topic + ": " + e, e);
        }
    }
}
