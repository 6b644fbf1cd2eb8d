package dev.baton.streams.recovery;

import java.time.Instant;

import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * An open transaction on a partition that its coordinator no longer counts as open: no marker will
 * ever close it, and {@code read_committed} readers stop at its first offset until it is aborted.
 *
 * @param coordinatorSays what the coordinator reported for {@code transactionalId}, for the log
 */
public record HangingTransaction(TopicPartition partition, long producerId, short producerEpoch, int coordinatorEpoch,
                                 long startOffset, long lastWriteMillis, String transactionalId, String coordinatorSays) {

    AbortTransactionSpec abortSpec() {
        return new AbortTransactionSpec(partition, producerId, producerEpoch, coordinatorEpoch);
    }

    /** The operator's command that does what {@link HangingTransactionReaper} does, for when it may not. */
    public String abortCommand() {
        return "kafka-transactions.sh --bootstrap-server <servers> abort --topic " + partition.topic() + " --partition " + partition.partition()
                + " --producer-id " + producerId + " --producer-epoch " + producerEpoch + " --coordinator-epoch " + coordinatorEpoch;
    }

    @Override
    public String toString() {
        return partition + " from offset " + startOffset + ": producer " + producerId + " epoch " + producerEpoch + " (" + transactionalId
                + "), last write " + Instant.ofEpochMilli(lastWriteMillis) + ", while its coordinator says " + coordinatorSays;
    }
}
