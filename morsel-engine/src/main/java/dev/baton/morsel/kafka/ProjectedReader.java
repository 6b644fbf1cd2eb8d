package dev.baton.morsel.kafka;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.UndecodableRecordException.Reason;
import dev.baton.schemas.registry.SchemaEvolution;
import dev.baton.schemas.registry.SchemaNotFoundException;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * Reads the projected fields of Confluent-framed Avro values (magic byte 0, 4-byte schema id,
 * binary body) without building a record: the writer's schema is looked up by id once, compiled
 * against the {@link Projection} into a {@link ProjectionPlan}, and reused for every value of that
 * id. Decodes what {@link EventSerde} would decode for the projected fields, and refuses what it
 * refuses (wrong magic byte, unknown or incompatible schema id, truncated, corrupt or trailing
 * bytes) with the same {@link UndecodableRecordException} reasons.
 *
 * <p>Thread-safe; each thread decodes into its own {@link ProjectedRow} ({@link #newRow}).
 */
public final class ProjectedReader {

    private final SchemaRegistry registry;
    private final Supplier<Projection> projectionSource;
    private volatile Projection projection;
    private final Map<Integer, ProjectionPlan> planById = new ConcurrentHashMap<>();

    public ProjectedReader(SchemaRegistry registry, Projection projection) {
        this(registry, () -> projection);
    }

    /**
     * A reader whose projection is asked for on first use: a projection of a generated class parses
     * its Avro schema, which on a cold JVM is class loading and JSON that a command can do beside
     * other work instead of before it.
     */
    public ProjectedReader(SchemaRegistry registry, Supplier<Projection> projection) {
        this.registry = registry;
        this.projectionSource = projection;
    }

    public Projection projection() {
        Projection p = projection;
        if (p == null) {
            synchronized (this) {
                if (projection == null) {
                    projection = projectionSource.get();
                }
                p = projection;
            }
        }
        return p;
    }

    public ProjectedRow newRow() {
        return new ProjectedRow(projection().size());
    }

    /**
     * Decodes {@code value} (a value of {@code topic}, not null) into {@code row}.
     *
     * @throws UndecodableRecordException naming the reason; the row's content is then undefined
     */
    public void decode(String topic, byte[] value, ProjectedRow row) {
        decode(topic, value, 0, value.length, row);
    }

    /**
     * Decodes the remaining bytes of {@code value} (not null) in place, as {@link #decode(String, byte[], ProjectedRow)}
     * does: a value still inside its fetched batch is read without a copy. Neither the buffer nor its position is kept or moved.
     */
    public void decode(String topic, ByteBuffer value, ProjectedRow row) {
        if (value.hasArray()) {
            decode(topic, value.array(), value.arrayOffset() + value.position(), value.remaining(), row);
        } else {
            byte[] copy = new byte[value.remaining()];
            value.duplicate().get(copy);
            decode(topic, copy, row);
        }
    }

    private void decode(String topic, byte[] value, int offset, int length, ProjectedRow row) {
        if (length == 0) {
            throw undecodable(Reason.EMPTY, "the value has no bytes", topic, null);
        }
        if (value[offset] != EventSerde.MAGIC_BYTE) {
            throw undecodable(Reason.WRONG_MAGIC_BYTE, "first byte is " + value[offset] + ", the Confluent wire format starts with 0", topic, null);
        }
        if (length < EventSerde.HEADER_BYTES) {
            throw undecodable(Reason.TRUNCATED, length + " bytes cannot hold the 5-byte header", topic, null);
        }
        int id = (value[offset + 1] & 0xff) << 24 | (value[offset + 2] & 0xff) << 16 | (value[offset + 3] & 0xff) << 8 | (value[offset + 4] & 0xff);
        ProjectionPlan plan = row.lastSchemaId == id && row.lastPlan != null ? row.lastPlan : planFor(id, topic);
        row.lastSchemaId = id;
        row.lastPlan = plan;
        WireReader in = row.reader;
        in.reset(value, offset + EventSerde.HEADER_BYTES, length - EventSerde.HEADER_BYTES);
        try {
            plan.decode(in, row);
            if (!in.isEnd()) {
                throw undecodable(Reason.CORRUPT_BODY, "trailing bytes after a complete record of schema id " + id, topic, null);
            }
        } catch (EOFException e) {
            throw undecodable(Reason.TRUNCATED, "the body ended early for schema id " + id, topic, e);
        } catch (ProjectionPlan.Mismatch e) {
            throw undecodable(Reason.INCOMPATIBLE_SCHEMA, "schema id " + id + ": " + e.getMessage(), topic, e);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException | IllegalArgumentException
                 | ClassCastException | UnsupportedOperationException e) {
            // The same list as EventSerde's: a damaged length makes Avro refuse a string as over its limit
            // (UnsupportedOperationException), which must not escape as anything but an undecodable record.
            throw undecodable(Reason.CORRUPT_BODY, "the body does not match schema id " + id + ": " + e, topic, e);
        } catch (StackOverflowError e) {
            // As EventSerde: a record nested past the scan thread's stack is refused, not allowed to end the scan.
            throw undecodable(Reason.CORRUPT_BODY, "the body nests deeper than this thread's stack for schema id " + id, topic, null);
        }
    }

    private ProjectionPlan planFor(int id, String topic) {
        ProjectionPlan plan = planById.get(id);
        if (plan != null) {
            return plan;
        }
        Schema writer;
        try {
            writer = registry.schemaById(id);
        } catch (SchemaNotFoundException e) {
            throw undecodable(Reason.UNKNOWN_SCHEMA_ID, "schema id " + id + " is not registered", topic, e);
        }
        if (SchemaEvolution.backwardIncompatibilities(projection().reader(), writer).isPresent()) {
            throw undecodable(Reason.INCOMPATIBLE_SCHEMA, "schema id " + id + " (" + writer.getFullName() + ") cannot be read as "
                    + projection().reader().getFullName(), topic, null);
        }
        return planById.computeIfAbsent(id, i -> ProjectionPlan.compile(writer, projection()));
    }

    private static UndecodableRecordException undecodable(Reason reason, String detail, String topic, Throwable cause) {
        return new UndecodableRecordException(reason, detail, topic, -1, -1, cause);
    }
}
