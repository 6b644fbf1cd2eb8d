package dev.baton.streams.processor;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A stream thread's main consumer that tells the thread's {@link InputDrain} what each poll returned. */
final class DrainSignallingConsumer extends KafkaConsumer<byte[], byte[]> {

    private final int maxPollRecords;

    DrainSignallingConsumer(Map<String, Object> config) {
        super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        Object max = config.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
        this.maxPollRecords = max == null ? ConsumerConfig.DEFAULT_MAX_POLL_RECORDS : Integer.parseInt(max.toString());
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
        InputDrain.current().polled(records.count(), maxPollRecords);
        return records;
    }
}
