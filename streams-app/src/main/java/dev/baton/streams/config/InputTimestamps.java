package dev.baton.streams.config;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The time Kafka Streams gives an input record: its own timestamp, or, for a record without one, the partition's
 * time so far (the wall clock before the partition has any).
 *
 * <p>Why: a record's timestamp may be -1 ("no timestamp" in the record format), which the broker accepts from any client
 * that writes none. Kafka Streams' default extractor throws on it before a processor sees the record: the stream thread
 * died, its replacement read the same record from the committed offset and died again, and every site of the partition
 * waited forever (h/adv21). A dispatch given the partition's time is decided as any other; its schedule-to-start then
 * counts from when the records before it were written, which is as close as the log can say. Extractors that return a
 * negative time make Kafka Streams drop the record, which for a dispatch would leave its caller unanswered.
 *
 * <p>The wall clock is read directly: Kafka Streams makes an extractor from its class name, with no clock or context
 * to hand it, and the read happens only for a partition's first records when they carry no timestamp.
 */
public final class InputTimestamps implements TimestampExtractor {

    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
        long timestamp = record.timestamp();
        if (timestamp >= 0) {
            return timestamp;
        }
        return partitionTime >= 0 ? partitionTime : System.currentTimeMillis();
    }
}
