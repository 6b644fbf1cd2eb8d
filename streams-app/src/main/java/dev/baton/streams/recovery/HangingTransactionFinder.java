package dev.baton.streams.recovery;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds {@link HangingTransaction}s: partitions whose last stable offset is held by an open
 * transaction that its coordinator reports as finished, or as open without that partition.
 *
 * <p>Why: a coordinator that completes a transaction while a partition of it has no leader skips
 * that partition's marker as if the partition were deleted (KAFKA-20734, Kafka 4.4; a single broker's
 * controlled shutdown leaves every partition leaderless for a moment). The
 * partition then stays "in transaction" forever. On {@code baton.worker-events} that stalls every
 * site of the partition at its lease; on {@code __consumer_offsets} it leaves a pending offset
 * commit that keeps the worker group from fetching its positions. Nothing in Kafka ever ends it.
 *
 * <p>The coordinator's word is required, and the transaction must be older than twice its own
 * timeout and than {@code minAgeMs}: a transaction the coordinator still tracks ends by itself, and
 * an old one it has just finished would still be reported open here for a moment.
 */
public final class HangingTransactionFinder {

    private static final long TIMEOUT_MS = 10_000;
    private static final Set<TransactionState> OPEN = EnumSet.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
            TransactionState.PREPARE_ABORT);

    private final Admin admin;
    private final Predicate<String> watchedTopic;
    private final Predicate<String> ownTransactionalId;
    private final long minAgeMs;
    private final Clock clock;

    /**
     * @param watchedTopic       the topics to check, by name (internal topics included)
     * @param ownTransactionalId whose transactions may be reported; others are left to their owners
     */
    public HangingTransactionFinder(Admin admin, Predicate<String> watchedTopic, Predicate<String> ownTransactionalId, long minAgeMs,
                                    Clock clock) {
        this.admin = admin;
        this.watchedTopic = watchedTopic;
        this.ownTransactionalId = ownTransactionalId;
        this.minAgeMs = minAgeMs;
        this.clock = clock;
    }

    public List<HangingTransaction> find() throws ExecutionException, InterruptedException, TimeoutException {
        List<TopicPartition> partitions = watchedPartitions();
        if (partitions.isEmpty()) {
            return List.of();
        }
        Map<TopicPartition, Long> stable = PartitionReadability.latestOffsets(admin, partitions, IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> end = PartitionReadability.latestOffsets(admin, partitions, IsolationLevel.READ_UNCOMMITTED);
        List<TopicPartition> heldBack = partitions.stream().filter(tp -> stable.get(tp) < end.get(tp)).toList();
        if (heldBack.isEmpty()) {
            return List.of();
        }
        long now = clock.millis();
        List<Map.Entry<TopicPartition, ProducerState>> oldOpen = new ArrayList<>();
        PartitionReadability.openTransactions(admin, heldBack).forEach((tp, producers) -> producers.stream()
                .filter(p -> now - p.lastTimestamp() > minAgeMs)
                .forEach(p -> oldOpen.add(Map.entry(tp, p))));
        if (oldOpen.isEmpty()) {
            return List.of();
        }
        Map<Long, String> idByProducer = transactionalIds(oldOpen.stream().map(e -> e.getValue().producerId()).collect(Collectors.toSet()));
        Map<String, TransactionDescription> described = describe(idByProducer.values());
        List<HangingTransaction> hanging = new ArrayList<>();
        for (Map.Entry<TopicPartition, ProducerState> open : oldOpen) {
            TopicPartition tp = open.getKey();
            ProducerState p = open.getValue();
            String id = idByProducer.get(p.producerId());
            TransactionDescription d = id == null ? null : described.get(id);
            if (d != null && isHanging(tp, p, d, now)) {
                hanging.add(new HangingTransaction(tp, p.producerId(), (short) p.producerEpoch(), p.coordinatorEpoch().orElse(-1),
                        p.currentTransactionStartOffset().getAsLong(), p.lastTimestamp(), id,
                        d.state() + " at epoch " + d.producerEpoch() + " with partitions " + d.topicPartitions()));
            }
        }
        return hanging;
    }

    /** Whether {@code h} is still open as found: checked again right before an abort. */
    public boolean stillOpen(HangingTransaction h) throws ExecutionException, InterruptedException, TimeoutException {
        return PartitionReadability.openTransactions(admin, List.of(h.partition())).getOrDefault(h.partition(), List.of()).stream()
                .anyMatch(p -> p.producerId() == h.producerId() && p.producerEpoch() == h.producerEpoch()
                        && p.currentTransactionStartOffset().getAsLong() == h.startOffset());
    }

    private boolean isHanging(TopicPartition tp, ProducerState p, TransactionDescription d, long now) {
        if (now - p.lastTimestamp() <= 2 * d.transactionTimeoutMs()) {
            return false;
        }
        boolean tracked = d.producerId() == p.producerId() && OPEN.contains(d.state()) && d.topicPartitions().contains(tp);
        return !tracked;
    }

    private List<TopicPartition> watchedPartitions() throws ExecutionException, InterruptedException, TimeoutException {
        List<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .stream().filter(watchedTopic).toList();
        return PartitionReadability.partitionsOf(admin, topics);
    }

    /** The transactional id of each producer id, where it is one of ours. */
    private Map<Long, String> transactionalIds(Set<Long> producerIds) throws ExecutionException, InterruptedException, TimeoutException {
        Collection<TransactionListing> listed = admin.listTransactions(new ListTransactionsOptions().filterProducerIds(producerIds)).all()
                .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return listed.stream().filter(l -> ownTransactionalId.test(l.transactionalId()))
                .collect(Collectors.toMap(TransactionListing::producerId, TransactionListing::transactionalId, (a, b) -> a));
    }

    private Map<String, TransactionDescription> describe(Collection<String> ids) throws ExecutionException, InterruptedException, TimeoutException {
        if (ids.isEmpty()) {
            return Map.of();
        }
        return admin.describeTransactions(Set.copyOf(ids)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }
}
