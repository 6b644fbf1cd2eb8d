package dev.baton.streams.config;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The record's timestamp, or the wall clock for a record without a valid one (-1, "no timestamp", which the broker
 * accepts under {@code CreateTime} from any client writing the v2 format without one). Kafka Streams' default,
 * {@code FailOnInvalidTimestamp}, throws on such a record before any processor sees it: the stream thread died,
 * and the thread replacing it read the same record again, so one record blocked its partition for good
 * (adversary round 21, {@code Adv21NoTimestampIT}). A dispatch's timers count from the earlier of its timestamp
 * and now, so now is what a record without a timestamp gets.
 */
public final class InvalidTimestampAsNow implements TimestampExtractor {

    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
        long timestamp = record.timestamp();
        return timestamp >= 0 ? timestamp : System.currentTimeMillis();
    }
}
