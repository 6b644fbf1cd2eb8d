package dev.baton.schemas;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's value could not be decoded. Carries where the record sits so it can be sent to
 * {@code baton.dlq}; the caller should dead-letter it and go on, never retry it.
 */
public class UndecodableRecordException extends SerializationException {

    /** Why a record could not be decoded. */
    public enum Reason {
        EMPTY, WRONG_MAGIC_BYTE, TRUNCATED, UNKNOWN_SCHEMA_ID, CORRUPT_BODY, INCOMPATIBLE_SCHEMA, INVALID_VALUE
    }

    private final Reason reason;
    private final String topic;
    private final int partition;
    private final long offset;

    public UndecodableRecordException(Reason reason, String detail, String topic, int partition, long offset, Throwable cause) {
        super(reason + ": " + detail + " (topic " + topic + ", partition " + partition + ", offset " + offset + ")", cause);
        this.reason = reason;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
    }

    /** The same failure, now knowing where the record sits. */
    public UndecodableRecordException at(String topic, int partition, long offset) {
        String detail = getMessage().substring(reason.name().length() + 2, getMessage().lastIndexOf(" (topic "));
        return new UndecodableRecordException(reason, detail, topic, partition, offset, getCause());
    }

    public Reason reason() {
        return reason;
    }

    public String topic() {
        return topic;
    }

    /** -1 when unknown (a bare {@code Deserializer} call). */
    public int partition() {
        return partition;
    }

    /** -1 when unknown (a bare {@code Deserializer} call). */
    public long offset() {
        return offset;
    }
}
