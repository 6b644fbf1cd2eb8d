package dev.baton.schemas.registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Schemas stored in the single-partition topic {@code _baton_schemas} ({@code kafka://}).
 *
 * <p>Each record is one registration: key = subject, value = schema JSON. A schema's id is the
 * offset of the first registration of its parsing canonical form ({@link RegistrationLog}), so a
 * client in any language that registers the same schema, however it writes the JSON, gets the id
 * Java processes use. The topic has infinite retention and is never compacted:
 * compaction could drop a first registration and so change an id that data on disk still names.
 * Every process that reads the topic folds it the same way, so all agree on every id with no
 * coordinator; two processes racing to register one schema both append, and the lower offset wins
 * for both.
 */
final class KafkaTopicSchemaRegistry implements SchemaRegistry {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final TopicPartition PARTITION = new TopicPartition(BatonTopics.SCHEMAS, 0);

    private final RegistrationLog log = new RegistrationLog();
    private final Map<String, Object> clientConfig;
    private final KafkaConsumer<byte[], byte[]> consumer;
    /** Made on the first registration: most users only read schemas, and a producer is a thread, a connection and many classes. */
    private KafkaProducer<byte[], byte[]> producer;

    KafkaTopicSchemaRegistry(Map<String, Object> clientConfig) {
        this.clientConfig = new HashMap<>(clientConfig);
        Map<String, Object> reader = ClientConfigs.assignedReader(clientConfig);
        // Asking for the topic must never create it with the broker's defaults: it needs infinite retention (schemasTopic()).
        reader.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        this.consumer = new KafkaConsumer<>(reader, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            // The consumer sees the topic in its metadata; only when it is missing does an admin client come up to create it.
            List<PartitionInfo> partitions = consumer.partitionsFor(BatonTopics.SCHEMAS, TIMEOUT);
            if (partitions == null || partitions.isEmpty()) {
                ensureTopic(clientConfig);
            }
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw e;
        }
        consumer.assign(List.of(PARTITION));
        consumer.seekToBeginning(List.of(PARTITION));
    }

    @Override
    public synchronized int register(String subject, Schema schema) {
        catchUp(-1);
        Optional<Integer> existing = log.idUnder(subject, schema);
        if (existing.isPresent()) {
            return existing.get();
        }
        log.requireCompatible(subject, schema);
        long offset = append(subject, schema);
        catchUp(offset);
        return log.idUnder(subject, schema).orElseThrow(() -> new SchemaRegistryException(
                "registration of subject '" + subject + "' at offset " + offset + " was not found when reading " + BatonTopics.SCHEMAS));
    }

    @Override
    public synchronized Schema schemaById(int id) {
        Optional<Schema> known = log.schema(id);
        if (known.isPresent()) {
            return known.get();
        }
        catchUp(-1);
        return log.schema(id).orElseThrow(() -> new SchemaNotFoundException("no schema has id " + id + " in " + BatonTopics.SCHEMAS));
    }

    @Override
    public synchronized Optional<RegisteredSchema> latest(String subject) {
        catchUp(-1);
        return log.latest(subject);
    }

    @Override
    public synchronized boolean isCompatible(String subject, Schema schema) {
        catchUp(-1);
        return log.isCompatible(subject, schema);
    }

    @Override
    public synchronized List<String> subjects() {
        catchUp(-1);
        return log.subjects();
    }

    @Override
    public synchronized List<RegisteredSchema> versions(String subject) {
        catchUp(-1);
        return log.versions(subject);
    }

    @Override
    public synchronized Optional<RegisteredSchema> lookup(String subject, Schema schema) {
        catchUp(-1);
        return log.lookup(subject, schema);
    }

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }

    private KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            Map<String, Object> producerConfig = ClientConfigs.durableProducer(clientConfig);
            producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    private long append(String subject, Schema schema) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(BatonTopics.SCHEMAS, 0,
                subject.getBytes(StandardCharsets.UTF_8), schema.toString().getBytes(StandardCharsets.UTF_8));
        try {
            RecordMetadata meta = producer().send(record).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return meta.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryUnavailableException("interrupted while registering subject '" + subject + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SchemaRegistryUnavailableException("could not append to " + BatonTopics.SCHEMAS + " for subject '" + subject + "'", e);
        }
    }

    /** Reads the schema topic up to its end, and at least past {@code mustPass}. */
    private void catchUp(long mustPass) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            long end = Math.max(consumer.endOffsets(List.of(PARTITION), TIMEOUT).get(PARTITION), mustPass + 1);
            while (consumer.position(PARTITION, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new SchemaRegistryUnavailableException("timed out reading " + BatonTopics.SCHEMAS + " up to offset " + end, null);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.key() != null && r.value() != null) {
                        log.apply(r.offset(), new String(r.key(), StandardCharsets.UTF_8), new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (KafkaException e) {
            throw new SchemaRegistryUnavailableException("cannot read " + BatonTopics.SCHEMAS + ": " + e.getMessage(), e);
        }
    }

    private static void ensureTopic(Map<String, Object> clientConfig) {
        try (Admin admin = Admin.create(ClientConfigs.admin(clientConfig))) {
            if (exists(admin)) {
                // Most roles may not create topics (DESIGN §10); only try when it is really missing.
                return;
            }
            // TopicCreator returns once the partition takes writes, and tolerates a concurrent creator.
            new TopicCreator(admin).create(List.of(BatonTopics.schemasTopic()));
        } catch (ExecutionException | KafkaException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new SchemaRegistryUnavailableException("cannot create " + BatonTopics.SCHEMAS + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryUnavailableException("interrupted while creating " + BatonTopics.SCHEMAS, e);
        } catch (TimeoutException e) {
            throw new SchemaRegistryUnavailableException("timed out creating " + BatonTopics.SCHEMAS, e);
        }
    }

    private static boolean exists(Admin admin) throws InterruptedException, TimeoutException, ExecutionException {
        try {
            admin.describeTopics(Set.of(BatonTopics.SCHEMAS)).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false;
            }
            throw e;
        }
    }
}
