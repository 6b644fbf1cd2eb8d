package dev.baton.streams.processor;

import java.time.Clock;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A stream thread's producer that tells the thread's {@link InputDrain} when a commit has ended:
 * under exactly-once a stream thread's commit ends with its producer's {@code commitTransaction},
 * called on that thread (or, for a task found corrupted, with {@code abortTransaction}), and Kafka
 * Streams has no other public signal of it.
 */
final class CommitEndSignallingProducer extends KafkaProducer<byte[], byte[]> {

    /** The wall clock Streams' punctuators run on, which the drain's gap is compared against. */
    private final Clock clock;

    CommitEndSignallingProducer(Map<String, Object> config, Clock clock) {
        super(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.clock = clock;
    }

    @Override
    public void commitTransaction() {
        super.commitTransaction();
        InputDrain.current().commitEnded(clock.millis());
    }

    @Override
    public void abortTransaction() {
        super.abortTransaction();
        InputDrain.current().aborted();
    }
}
