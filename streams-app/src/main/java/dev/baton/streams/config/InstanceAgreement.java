package dev.baton.streams.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settings every instance of one application id must share, compared at start in a topic of their own,
 * {@code <application.id>-agreement} (one partition, kept for ever): Kafka Streams gives instances no other place to
 * compare settings.
 * <ul>
 * <li>{@code token.key}, as a fingerprint (a hash, never the key). Under at-least-once a crash can lose a row's write
 * after its task went out; the instance that reads the dispatch again re-creates the row's secret from its own key, and
 * with another key it refuses the delivered token as forged and runs the request again: a second, different outcome for
 * one request id (h/adv23x). It changes only with {@code token.key.rotate=true}: an instance started alone with another
 * key is far more often a mistake than a rotation.
 * <li>{@code processing.guarantee}. An exactly-once instance's transactions and an at-least-once instance's plain
 * writes do not fence each other, and a task handed between them is restored under rules written for the other mode
 * (h/adv23x's mixed application id left callers unanswered). Starting every instance with another guarantee is how an
 * operator switches modes, so it changes without a flag.
 * </ul>
 * Each record is a {@code claim} or a {@code change} of one setting's value ({@code setting=value}). The value in force
 * is the last change's, or, before any change, the first claim's (so two instances starting at once with different
 * values agree on the first that wrote). An instance claims what has no value in force; it changes a value only while
 * no instance of the application id is running (its group has no members); otherwise it refuses to start, naming both
 * values. An instance counts as running only once it has joined the group, so two started at the same moment can both
 * pass this check; each checks again while it runs ({@link #verify}), and the one whose value is no longer in force
 * stops: a mixed application id lasts seconds, not for good. The check is for the operator's mistake, not a lock.
 */
public final class InstanceAgreement {

    static final String CLAIM = "claim";
    static final String CHANGE = "change";
    static final String TOKEN_KEY = "token.key";
    static final String PROCESSING_GUARANTEE = "processing.guarantee";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Logger log = LoggerFactory.getLogger(InstanceAgreement.class);

    private final Map<String, Object> clientConfig;
    private final String applicationId;
    private final String topic;

    private InstanceAgreement(Map<String, Object> clientConfig, String applicationId) {
        this.clientConfig = clientConfig;
        this.applicationId = applicationId;
        this.topic = topic(applicationId);
    }

    /** This instance's guarantee or key is not the one the instances of its application id use. */
    public static final class Disagreement extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Disagreement(String message) {
            super(message);
        }
    }

    /** The topic where the instances of {@code applicationId} keep the settings they share. */
    public static String topic(String applicationId) {
        return applicationId + "-agreement";
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

    /**
     * Makes sure this instance's guarantee and key ({@code key} may be null: exactly-once needs none) are the ones in
     * force for {@code applicationId}, claiming what none is in force for and changing what differs when allowed.
     *
     * @throws IllegalStateException naming the setting and both values when a setting differs and may not change now
     */
    public static void require(Map<String, Object> clientConfig, String applicationId, String guarantee, byte[] key, boolean rotateKey) {
        Map<String, String> own = own(guarantee, key);
        long start = System.nanoTime();
        new InstanceAgreement(clientConfig, applicationId).require(own, rotateKey);
        log.info("instances of application id '{}' agree on {} (compared in {}, {} ms)", applicationId, own.keySet(), topic(applicationId),
                (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Checks, while this instance runs, that its guarantee and key are still the ones in force. A check at start cannot
     * see an instance that has not joined the group yet: one started at the same moment with another guarantee finds the
     * group empty and changes the value in force (h/adv24a). So each instance checks again once it runs:
     * <ul>
     * <li>a value in force by a {@code change} that differs from this instance's was a deliberate switch: this instance
     * is the odd one and must stop (thrown);
     * <li>a value in force by a {@code claim} that differs, or none at all, means the topic lost its records (deleted,
     * or kept for a limited time) and a newcomer claimed whatever it had (h/adv24a): the running instance writes its own
     * value back as a {@code change}, and the newcomer stops at its next check.
     * </ul>
     *
     * @throws Disagreement naming the setting and both values when this instance must stop; any other exception says
     *         the check could not be made (a broker away), not that the instance disagrees
     */
    public static void verify(Map<String, Object> clientConfig, String applicationId, String guarantee, byte[] key) {
        InstanceAgreement agreement = new InstanceAgreement(clientConfig, applicationId);
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            agreement.createTopic(admin); // deleted meanwhile: made again, and this instance's values written back below
        }
        List<String[]> records;
        try (Reader reader = agreement.new Reader()) {
            records = reader.readToEnd();
        }
        List<String[]> restore = new ArrayList<>();
        for (Map.Entry<String, String> setting : own(guarantee, key).entrySet()) {
            String[] source = inForceRecord(records, setting.getKey());
            String value = source == null ? null : source[1].substring(setting.getKey().length() + 1);
            if (setting.getValue().equals(value)) {
                continue;
            }
            if (source != null && CHANGE.equals(source[0])) {
                throw agreement.differs(setting.getKey(), setting.getValue(), value);
            }
            log.warn("{} of application id '{}' in {} is {} while this running instance has {}: the topic lost its records and "
                    + "an instance claimed its own value; writing this instance's back (that instance stops at its next check)",
                    setting.getKey(), applicationId, agreement.topic, value == null ? "missing" : value, setting.getValue());
            restore.add(record(CHANGE, setting.getKey(), setting.getValue()));
        }
        if (!restore.isEmpty()) {
            agreement.write(restore);
        }
    }

    private static Map<String, String> own(String guarantee, byte[] key) {
        Map<String, String> own = new LinkedHashMap<>();
        own.put(PROCESSING_GUARANTEE, guarantee);
        if (key != null) {
            own.put(TOKEN_KEY, fingerprint(key));
        }
        return own;
    }

    private void require(Map<String, String> own, boolean rotateKey) {
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig)); Reader reader = new Reader()) {
            createTopic(admin);
            List<String[]> records = reader.readToEnd();
            List<String[]> writes = new ArrayList<>();
            for (Map.Entry<String, String> setting : own.entrySet()) {
                Optional<String> inForce = inForce(records, setting.getKey());
                if (inForce.isEmpty()) {
                    writes.add(record(CLAIM, setting.getKey(), setting.getValue()));
                } else if (!inForce.get().equals(setting.getValue())) {
                    if (TOKEN_KEY.equals(setting.getKey()) && !rotateKey) {
                        throw differs(setting.getKey(), setting.getValue(), inForce.get());
                    }
                    requireNoInstanceRunning(admin, setting.getKey(), setting.getValue(), inForce.get());
                    writes.add(record(CHANGE, setting.getKey(), setting.getValue()));
                }
            }
            if (writes.isEmpty()) {
                return;
            }
            write(writes);
            records.addAll(reader.readToEnd()); // ours, and whatever another instance wrote meanwhile
            for (Map.Entry<String, String> setting : own.entrySet()) {
                Optional<String> inForce = inForce(records, setting.getKey());
                if (!inForce.map(setting.getValue()::equals).orElse(false)) {
                    throw differs(setting.getKey(), setting.getValue(), inForce.orElse("unknown"));
                }
            }
        }
    }

    /** The value of {@code setting} in force after {@code records} ({@code [kind, setting=value]} in log order), if any. */
    static Optional<String> inForce(List<String[]> records, String setting) {
        String[] source = inForceRecord(records, setting);
        return source == null ? Optional.empty() : Optional.of(source[1].substring(setting.length() + 1));
    }

    /** The record that puts {@code setting}'s value in force: the last change, or before any, the first claim; null if none. */
    private static String[] inForceRecord(List<String[]> records, String setting) {
        String prefix = setting + "=";
        String[] firstClaim = null;
        String[] lastChange = null;
        for (String[] r : records) {
            if (r[1] == null || !r[1].startsWith(prefix)) {
                continue;
            }
            if (CHANGE.equals(r[0])) {
                lastChange = r;
            } else if (CLAIM.equals(r[0]) && firstClaim == null) {
                firstClaim = r;
            }
        }
        return lastChange != null ? lastChange : firstClaim;
    }

    static String[] record(String kind, String setting, String value) {
        return new String[] {kind, setting + "=" + value};
    }

    private Disagreement differs(String setting, String own, String inForce) {
        if (TOKEN_KEY.equals(setting)) {
            return new Disagreement("token.key differs from the one the instances of application id '" + applicationId
                    + "' use (its fingerprint is " + own + ", theirs " + inForce + ", kept in topic " + topic + "): every instance "
                    + "must have the same key, or a token one issued is refused by another as forged. Start this instance with "
                    + "their key; to change the key, stop every instance and start one with token.key.rotate=true");
        }
        return new Disagreement(setting + "=" + own + " differs from the one the instances of application id '"
                + applicationId + "' use (" + inForce + ", kept in topic " + topic + "): instances of one application id must share "
                + "it (exactly-once transactions and at-least-once writes do not fence each other). Start this instance with "
                + setting + "=" + inForce + "; to change it, stop every instance (a killed one counts until its group session ends), "
                + "then start them with the new value");
    }

    private void requireNoInstanceRunning(Admin admin, String setting, String own, String inForce) {
        int members;
        try {
            members = members(admin);
        } catch (Exception e) {
            throw new IllegalStateException("cannot tell whether instances of application id '" + applicationId + "' are running ("
                    + e + "), so " + setting + " in force (" + inForce + ") is not changed to " + own, e);
        }
        if (members == 0) {
            return;
        }
        if (TOKEN_KEY.equals(setting)) {
            throw new IllegalStateException("token.key.rotate=true: " + members + " instance(s) of application id '"
                    + applicationId + "' are running with the key in force (" + inForce + "); stop every instance before rotating to "
                    + own);
        }
        throw differs(setting, own, inForce);
    }

    /**
     * The members of the application id's group. Kafka 4.4's describeConsumerGroups answers GroupIdNotFoundException for a
     * group that does not exist (every instance stopped and the group deleted or expired with its offsets) and for a
     * streams group ({@code group.protocol=streams}); the latter is asked as one, and a group that is neither has no
     * member (h/adv24a: both refused every change for ever).
     */
    private int members(Admin admin) throws Exception {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId)).describedGroups().get(applicationId)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return group.members().size();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                throw e;
            }
        }
        try {
            return admin.describeStreamsGroups(List.of(applicationId)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(applicationId).members().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }

    private void createTopic(Admin admin) {
        NewTopic spec = new NewTopic(topic, Optional.of(1), Optional.empty())
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, "-1", TopicConfig.RETENTION_BYTES_CONFIG, "-1"));
        try {
            admin.createTopics(List.of(spec)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create " + topic + " to compare the instances' settings: " + e.getCause(), e);
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + topic + " to compare the instances' settings: " + e, e);
        }
    }

    /** Reads the topic from its start, and on from where it stopped on each call. */
    private final class Reader implements AutoCloseable {
        private final TopicPartition tp = new TopicPartition(topic, 0);
        private final KafkaConsumer<String, String> consumer;

        Reader() {
            Map<String, Object> config = ClientConfigs.assignedReader(clientConfig);
            config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10); // the records are there: no reason to wait at the end
            consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
        }

        List<String[]> readToEnd() {
            List<String[]> records = new ArrayList<>();
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
            return records;
        }

        @Override
        public void close() {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
    }

    private void write(List<String[]> records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ClientConfigs.durableProducer(clientConfig), new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (String[] r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, r[0], r[1])));
            }
            for (Future<RecordMetadata> s : sent) {
                s.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing this instance's settings to " + topic, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write this instance's settings to " + topic + ": " + e, e);
        }
    }
}
