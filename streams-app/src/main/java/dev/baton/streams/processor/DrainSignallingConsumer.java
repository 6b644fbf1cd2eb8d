package dev.baton.streams.processor;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A stream thread's main consumer that tells the thread's {@link InputDrain} what each poll returned,
 * and waits in a poll no longer than a drained commit's gap has left.
 */
final class DrainSignallingConsumer extends KafkaConsumer<byte[], byte[]> {

    private final int maxPollRecords;
    /** The wall clock Streams' punctuators run on, which the drain's gap is compared against. */
    private final Clock clock;

    DrainSignallingConsumer(Map<String, Object> config, Clock clock) {
        super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.clock = clock;
        Object max = config.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
        this.maxPollRecords = max == null ? ConsumerConfig.DEFAULT_MAX_POLL_RECORDS : Integer.parseInt(max.toString());
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        InputDrain drain = InputDrain.current();
        long waitMs = drain.pollTimeoutMs(timeout.toMillis(), clock.millis());
        ConsumerRecords<byte[], byte[]> records = super.poll(waitMs == timeout.toMillis() ? timeout : Duration.ofMillis(waitMs));
        drain.polled(records.count(), maxPollRecords);
        return records;
    }
}
