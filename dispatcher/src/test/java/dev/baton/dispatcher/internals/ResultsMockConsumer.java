package dev.baton.dispatcher.internals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.RetriableCommitFailedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@link MockConsumer} of {@code baton.results} with the given partition count, every partition
 * empty (end offset 0). Unlike Kafka's, an empty {@code poll} waits a little (10 ms at most) for a
 * record, so a listener thread polling it does not spin a core while a test runs, yet sees a stop
 * request soon enough for {@code close()} to stay quick. {@code position} can be made to fail or to
 * wait for a broker that never answers.
 */
public final class ResultsMockConsumer extends MockConsumer<byte[], byte[]> {

    private final Map<Integer, Long> nextOffset = new HashMap<>();
    /** Every result added, so a seek back finds them again (Kafka's mock hands each record out once). */
    private final Map<Integer, List<ConsumerRecord<byte[], byte[]>>> log = new HashMap<>();
    private KafkaException positionException;
    private boolean holdPosition;
    private boolean wokenUp;
    private int failingAsyncCommits;
    private boolean metadataAway;

    public ResultsMockConsumer(int partitions) {
        super("latest");
        List<PartitionInfo> infos = new ArrayList<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(BatonTopics.RESULTS, p, Node.noNode(), new Node[0], new Node[0]));
            ends.put(new TopicPartition(BatonTopics.RESULTS, p), 0L);
        }
        if (partitions > 0) {
            updatePartitions(BatonTopics.RESULTS, infos);
        }
        updateEndOffsets(ends);
    }

    /**
     * Subscribes, and has the next {@code poll} assign every partition of the topics, as a group coordinator does for
     * a group's one member.
     */
    @Override
    public synchronized void subscribe(java.util.Collection<String> topics, org.apache.kafka.clients.consumer.ConsumerRebalanceListener listener) {
        super.subscribe(topics, listener);
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : topics) {
            for (PartitionInfo info : partitionsFor(topic)) {
                all.add(new TopicPartition(topic, info.partition()));
            }
        }
        schedulePollTask(() -> rebalance(all));
    }

    /** Appends a result to {@code partition} at its next offset; the partition must be assigned. */
    public synchronized void addResult(int partition, String key, byte[] value) {
        long offset = nextOffset.merge(partition, 1L, Long::sum) - 1;
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(BatonTopics.RESULTS, partition, offset,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
        log.computeIfAbsent(partition, p -> new ArrayList<>()).add(record);
        addRecord(record);
    }

    /** Seeks, and offers again the results from {@code offset} on, as a broker would. */
    @Override
    public synchronized void seek(TopicPartition partition, long offset) {
        super.seek(partition, offset);
        for (ConsumerRecord<byte[], byte[]> r : log.getOrDefault(partition.partition(), List.of())) {
            if (r.offset() >= offset) {
                super.addRecord(r);
            }
        }
    }

    @Override
    public synchronized void addRecord(ConsumerRecord<byte[], byte[]> record) {
        super.addRecord(record);
        notifyAll();
    }

    @Override
    public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
        if (!records.isEmpty()) {
            return records;
        }
        try {
            wait(Math.max(1, Math.min(10, timeout.toMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return super.poll(timeout);
    }

    /** The next {@code position} throws {@code exception}, as a consumer refused the topic does. */
    public synchronized void setPositionException(KafkaException exception) {
        positionException = exception;
    }

    /**
     * Every {@code position} waits as a consumer does while no broker answers: until {@code wakeup()}
     * (then {@link WakeupException}) or its timeout (then {@link TimeoutException}).
     */
    public synchronized void holdPosition() {
        holdPosition = true;
    }

    @Override
    public synchronized long position(TopicPartition partition, Duration timeout) {
        if (positionException != null) {
            KafkaException e = positionException;
            positionException = null;
            throw e;
        }
        if (holdPosition) {
            awaitWakeup(timeout);
        }
        return super.position(partition, timeout);
    }

    private void awaitWakeup(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!wokenUp) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("position not known within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
        wokenUp = false;
        throw new WakeupException();
    }

    @Override
    public synchronized void wakeup() {
        super.wakeup();
        wokenUp = true;
        notifyAll();
    }

    /** The next {@code n} {@code commitAsync} calls commit nothing and fail as a coordinator on the move fails them. */
    public synchronized void failAsyncCommits(int n) {
        failingAsyncCommits = n;
    }

    @Override
    public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        if (failingAsyncCommits > 0) {
            failingAsyncCommits--;
            if (callback != null) { // Kafka's consumer logs the failure when given none
                callback.onComplete(offsets, new RetriableCommitFailedException(new NotCoordinatorException("the coordinator moved")));
            }
            return;
        }
        super.commitAsync(offsets, callback);
    }

    /** While {@code away}, {@code partitionsFor} times out as it does while the broker is down. */
    public synchronized void metadataAway(boolean away) {
        metadataAway = away;
    }

    @Override
    public synchronized List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        if (metadataAway) {
            throw new TimeoutException("Timeout expired while fetching topic metadata");
        }
        return super.partitionsFor(topic, timeout);
    }
}
