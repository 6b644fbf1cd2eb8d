package dev.baton.dispatcher.internals;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's results partition follows from its id and the partition count of {@code baton.results}. This watches
 * that count: at start, a group that read elsewhere before reads its new partition from the start; while running, a
 * count that maps the id elsewhere stops the listener, which would otherwise wait on the old partition for good.
 * Used by {@link ResultListener} on its own thread only.
 */
final class ResultsPartitionCount {

    private static final Logger log = LoggerFactory.getLogger(ResultsPartitionCount.class);
    /** How often the partition count is compared with the one the listener started with. */
    static final Duration CHECK_EVERY = Duration.ofSeconds(1);

    private final String clientId;
    private final TopicPartition partition;
    /** The partition count when the listener chose its partition; 0 when unknown (nothing is checked then). */
    private int count;
    private long lastCheckNanos = System.nanoTime();

    ResultsPartitionCount(String clientId, TopicPartition partition) {
        this.clientId = clientId;
        this.partition = partition;
    }

    /**
     * Learns the count, and seeks this partition to its start when the group has a committed position on another
     * partition but none on this one: the count changed since it read its results elsewhere, and results keyed by
     * this client id now land here. Everything on this partition written since is this client's business; at the end
     * (the default for a new client id) it lost the outcomes written while it was down (adv23c,
     * Adv23cResultsPartitionsIT).
     */
    void startFromBeginningIfMoved(Consumer<byte[], byte[]> consumer) {
        List<PartitionInfo> infos = consumer.partitionsFor(partition.topic(), Duration.ofSeconds(30));
        count = infos == null ? 0 : infos.size();
        if (infos == null || infos.size() < 2) {
            return;
        }
        Set<TopicPartition> all = new HashSet<>();
        infos.forEach(i -> all.add(new TopicPartition(i.topic(), i.partition())));
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(all, Duration.ofSeconds(30));
        if (committed == null || committed.get(partition) != null) {
            return;
        }
        List<Integer> elsewhere = committed.entrySet().stream().filter(e -> e.getValue() != null).map(e -> e.getKey().partition()).sorted().toList();
        if (!elsewhere.isEmpty()) {
            log.warn("client {}: no results position on {} but one on partition(s) {} of {}: its partition count changed since this "
                    + "client id last read it; reading {} from its start", clientId, partition, elsewhere, partition.topic(), partition);
            consumer.seekToBeginning(List.of(partition));
        }
    }

    /**
     * At most every {@link #CHECK_EVERY}: once {@code baton.results} has another partition count that maps this client
     * id elsewhere, its results go to the other partition as soon as the streams app's producer learns it. The listener
     * stops instead of waiting (this throws), failing every waiting future with the reason, after committing what it
     * handled on the old partition; a client started again under this id reads the new partition from its start (above).
     * Reads the consumer's metadata, refreshed every {@code metadata.max.age.ms}: no request per check.
     *
     * @throws IllegalStateException if this client's results now go to another partition
     */
    void requireSameIfDue(Consumer<byte[], byte[]> consumer) {
        if (count == 0 || System.nanoTime() - lastCheckNanos < CHECK_EVERY.toNanos()) {
            return;
        }
        lastCheckNanos = System.nanoTime();
        List<PartitionInfo> now;
        try {
            now = consumer.partitionsFor(partition.topic(), Duration.ofSeconds(5));
        } catch (RetriableException e) {
            // The broker is away (restarting, say): the count is checked again a second later. This check stopping the
            // listener failed every pending dispatch of a client over a broker restart of a few seconds (the soak found it).
            log.debug("client {}: the partition count of {} is unknown for now: {}", clientId, partition.topic(), e.toString());
            return;
        }
        if (now == null || now.isEmpty() || now.size() == count) {
            return;
        }
        if (BatonTopics.keyPartition(clientId, now.size()) == partition.partition()) {
            count = now.size(); // this id's results stay where they were: nothing to do
            return;
        }
        consumer.commitSync(Map.of(partition, new OffsetAndMetadata(consumer.position(partition))), Duration.ofSeconds(5));
        throw new IllegalStateException(partition.topic() + " now has " + now.size() + " partitions, not " + count
                + ": results for client " + clientId + " go to partition " + BatonTopics.keyPartition(clientId, now.size())
                + ", not " + partition.partition() + "; create the client again to read them (its waiting dispatches' outcomes "
                + "reach its UnmatchedResultHandler)");
    }
}
