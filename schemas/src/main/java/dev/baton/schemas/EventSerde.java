package dev.baton.schemas;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.baton.schemas.UndecodableRecordException.Reason;
import dev.baton.schemas.registry.SchemaEvolution;
import dev.baton.schemas.registry.SchemaNotFoundException;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro values in the Confluent wire format: magic byte {@code 0}, the 4-byte big-endian schema id,
 * then the Avro binary body. Schemas are registered under {@code <topic>-value} (TopicNameStrategy),
 * so Confluent, Apicurio and Karapace tooling can read Baton's topics.
 *
 * <p>Decoding resolves the writer's schema (looked up by id) against this class's schema, so older
 * and newer producers interoperate within BACKWARD compatibility. Any record that cannot be decoded
 * raises {@link UndecodableRecordException} with the reason; registry outages raise the retriable
 * {@code SchemaRegistryUnavailableException} instead, because that record is not at fault.
 *
 * <p>Thread-safe.
 */
public final class EventSerde<T extends SpecificRecord> implements Serde<T> {

    public static final byte MAGIC_BYTE = 0;
    public static final int HEADER_BYTES = 5;
    /**
     * A record whose failure's causes nest deeper than this is refused as corrupt, however it is read: five bytes forge a
     * level, each level costs a reader stack frames, and one bound for every path keeps a record readable by one of Baton's
     * readers readable by all (Baton's SDKs send at most {@code ReportLimits.MAX_CAUSES}).
     */
    public static final int MAX_FAILURE_DEPTH = 100;

    static {
        AvroTrust.trustBatonEvents();
    }

    /**
     * Generated classes carry their own encoders ({@code customEncode}), which write fields directly
     * instead of walking the schema and resolving every union per value; Avro leaves them off unless
     * asked. They write the class's own schema, the one this serde registers. A separate instance:
     * switching them on in {@code SpecificData.get()} would change every other user of Avro in the JVM.
     */
    private static final SpecificData WITH_CUSTOM_ENCODERS = new SpecificData();

    static {
        WITH_CUSTOM_ENCODERS.setCustomCoders(true);
    }

    private final Class<T> type;
    private final Schema readerSchema;
    private final SchemaRegistry registry;
    private final SpecificDatumWriter<T> writer;
    private final Map<String, Integer> idByTopic = new ConcurrentHashMap<>();
    private final Map<Integer, Reading<T>> readingByWriterId = new ConcurrentHashMap<>();
    /** {@link DirectDecoders}' decoder of this type, or null; used for records written with the type's own schema. */
    private final DirectDecoders.Decoder<T> direct;
    private final String readerParsingForm;

    private EventSerde(Class<T> type, SchemaRegistry registry) {
        this.type = Objects.requireNonNull(type, "type");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.readerSchema = SpecificData.get().getSchema(type);
        this.writer = new SpecificDatumWriter<>(readerSchema, WITH_CUSTOM_ENCODERS);
        this.direct = DirectDecoders.of(type);
        this.readerParsingForm = SchemaNormalization.toParsingForm(readerSchema);
    }

    /**
     * How records of one writer's schema are read: by {@link DirectDecoders} when that schema is this type's own in
     * Avro's parsing canonical form (so the same fields in the same order and types), else by Avro's resolving reader.
     */
    private record Reading<T>(SpecificDatumReader<T> avro, DirectDecoders.Decoder<T> direct) {
    }

    public static <T extends SpecificRecord> EventSerde<T> of(Class<T> type, SchemaRegistry registry) {
        return new EventSerde<>(type, registry);
    }

    public Class<T> type() {
        return type;
    }

    /** Encodes {@code value} for {@code topic}, registering the schema on first use. */
    public byte[] encode(String topic, T value) {
        if (value == null) {
            return null;
        }
        int id = prepare(topic);
        EncodeBuffer out = EncodeBuffer.forThisThread();
        out.write(MAGIC_BYTE);
        out.write(id >>> 24);
        out.write(id >>> 16);
        out.write(id >>> 8);
        out.write(id);
        try {
            writer.write(value, out.encoder());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot encode " + type.getSimpleName() + " for " + topic + ": " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /**
     * Registers the schema for {@code topic} now, unless done already, and returns its id: a caller
     * that knows the topics ahead (a new queue's) pays the registry's round trip off the thread that
     * encodes. A concurrent {@link #encode} of the same topic waits for this registration, never makes
     * a second one.
     */
    public int prepare(String topic) {
        return idByTopic.computeIfAbsent(topic, t -> registry.register(t + "-value", readerSchema));
    }

    /** Decodes a record read from Kafka; the exception names its topic, partition and offset. */
    public T decode(ConsumerRecord<?, byte[]> record) {
        try {
            return decode(record.topic(), record.value());
        } catch (UndecodableRecordException e) {
            throw e.at(record.topic(), record.partition(), record.offset());
        }
    }

    /** Decodes a value of {@code topic}; a {@code null} value (a tombstone) decodes to {@code null}. */
    public T decode(String topic, byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        if (bytes.length == 0) {
            throw undecodable(Reason.EMPTY, "the value has no bytes", topic, null);
        }
        if (bytes[0] != MAGIC_BYTE) {
            throw undecodable(Reason.WRONG_MAGIC_BYTE, "first byte is " + bytes[0] + ", the Confluent wire format starts with 0", topic, null);
        }
        if (bytes.length < HEADER_BYTES) {
            throw undecodable(Reason.TRUNCATED, bytes.length + " bytes cannot hold the 5-byte header", topic, null);
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        Reading<T> reading = readingFor(id, topic);
        T value;
        boolean trailing;
        try {
            if (reading.direct() != null) {
                BodyReader body = new BodyReader(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES);
                value = reading.direct().read(body);
                trailing = !body.atEnd();
            } else {
                BinaryDecoder decoder = DecodeScratch.decoderOver(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES);
                value = reading.avro().read(null, decoder);
                trailing = !decoder.isEnd();
                DirectDecoders.requireFailureDepth(value); // the direct decoders check it as they read
            }
        } catch (EOFException e) {
            throw undecodable(Reason.TRUNCATED, "the body ended early for schema id " + id, topic, e);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException
                 | ClassCastException | IllegalArgumentException | UnsupportedOperationException e) {
            throw undecodable(Reason.CORRUPT_BODY, "the body does not match schema id " + id + ": " + e, topic, e);
        } catch (StackOverflowError e) {
            // A recursive type (a failure's cause) nested deeper than the thread's stack: a few bytes per level forge it.
            // The frames are gone once it is caught here, and the record is refused instead of ending the thread.
            throw undecodable(Reason.CORRUPT_BODY, "the body nests deeper than this thread's stack for schema id " + id, topic, null);
        }
        if (trailing) {
            throw undecodable(Reason.CORRUPT_BODY, "trailing bytes after a complete record of schema id " + id, topic, null);
        }
        return value;
    }

    private Reading<T> readingFor(int id, String topic) {
        Reading<T> cached = readingByWriterId.get(id);
        if (cached != null) {
            return cached;
        }
        Schema writerSchema;
        try {
            writerSchema = registry.schemaById(id);
        } catch (SchemaNotFoundException e) {
            throw undecodable(Reason.UNKNOWN_SCHEMA_ID, "schema id " + id + " is not registered", topic, e);
        }
        if (SchemaEvolution.backwardIncompatibilities(readerSchema, writerSchema).isPresent()) {
            throw undecodable(Reason.INCOMPATIBLE_SCHEMA, "schema id " + id + " (" + writerSchema.getFullName()
                    + ") cannot be read as " + readerSchema.getFullName(), topic, null);
        }
        return readingByWriterId.computeIfAbsent(id, i -> new Reading<>(new SpecificDatumReader<>(writerSchema, readerSchema),
                readerParsingForm.equals(SchemaNormalization.toParsingForm(writerSchema)) ? direct : null));
    }

    private static UndecodableRecordException undecodable(Reason reason, String detail, String topic, Throwable cause) {
        return new UndecodableRecordException(reason, detail, topic, -1, -1, cause);
    }

    @Override
    public Serializer<T> serializer() {
        return this::encode;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this::decode;
    }
}
