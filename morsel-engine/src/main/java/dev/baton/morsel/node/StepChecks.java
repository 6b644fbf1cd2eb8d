package dev.baton.morsel.node;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.morsel.kafka.OffsetRange;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.TerminalActivityException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks a step against the cluster before a node works on it: whoever may write {@code baton.dispatch} may dispatch
 * any step, and one that names a topic, a partition or offsets that are not there would otherwise hold a slot (a send
 * to a missing exchange waits {@code max.block.ms} per group), stall 90 s past a log's end, or plan more morsels than
 * the heap holds. Such a step fails terminally, naming the constraint and the value. A broker that does not answer
 * is not the step's fault: its timeout stays retryable. What is missing is asked again for {@link #SETTLE} before it
 * counts as missing: a broker's metadata may show a job's new exchange moments after the controller created it, and a
 * new leader's end offset may trail its predecessor's until the followers catch up; a legitimate step must not fail on
 * either, and a hostile one waits a few seconds more. Last, a step must carry its job's secret ({@link ExchangeSecret}):
 * the exchange's structure is checked first so that a malformed step is named for what is wrong with it, the secret
 * before anything of the source topic, whose partitions and end offsets a step without it must not be told (h/adv24a).
 *
 * <p>Thread-safe: the node's steps share one metadata consumer, one check at a time.
 */
final class StepChecks implements AutoCloseable {

    private static final Duration METADATA = Duration.ofSeconds(10);
    /** How long what a step names may take to show before the step is refused. */
    static final Duration SETTLE = Duration.ofSeconds(3);
    private static final long SETTLE_STEP_MS = 100;

    /** Past this many, the remembered secrets are forgotten (each is read again once): a node serves jobs for months. */
    private static final int SECRETS_KEPT = 1_000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    /**
     * The secret of each exchange seen, by topic id: a job run again under its id deletes its exchange and creates it
     * again under the same name with a new secret, and a secret remembered by name let the earlier run's pass (h/adv24a).
     */
    private final Map<Uuid, String> secrets = new HashMap<>();
    private final Admin admin;

    StepChecks(Map<String, Object> clientConfig) {
        this.consumer = new KafkaConsumer<>(ClientConfigs.assignedReader(clientConfig), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.admin = Admin.create(ClientConfigs.admin(clientConfig));
    }

    /** The exchange has exactly the step's partitions, and the split lies within its partition's committed records. */
    synchronized void scan(JobSteps.Scan step, String exchange) throws TerminalActivityException {
        if (step.exchangePartitions() < 1) {
            throw new TerminalActivityException("an engine scan step needs exchangePartitions >= 1, was " + step.exchangePartitions());
        }
        int exchangePartitions = partitions(exchange, "exchange topic of job '" + step.job() + "' (it was never created, or the job has ended)");
        if (exchangePartitions != step.exchangePartitions()) {
            throw new TerminalActivityException("an engine scan step of job '" + step.job() + "' names " + step.exchangePartitions()
                    + " exchange partitions, " + exchange + " has " + exchangePartitions);
        }
        // The secret before the source: a refusal of the source names its partitions and end offsets, which a step
        // without the secret must not learn of a topic its sender may not describe (h/adv24a). The job's own steps carry
        // it, so a malformed one of theirs is still named for its defect.
        secret(step.job(), exchange, step.secret());
        OffsetRange split = step.split();
        int sourcePartitions = partitions(split.topic(), "source topic");
        if (split.partition() >= sourcePartitions) {
            throw new TerminalActivityException("split " + split + " names partition " + split.partition() + ", "
                    + split.topic() + " has " + sourcePartitions);
        }
        TopicPartition tp = new TopicPartition(split.topic(), split.partition());
        long end = endOffset(tp, split.to());
        if (split.to() > end) {
            throw new TerminalActivityException("split " + split + " ends at offset " + split.to() + ", past " + tp
                    + "'s end offset " + end + ": a split is taken from end offsets, never beyond them");
        }
    }

    /** The exchange partition the step merges exists. */
    synchronized void merge(JobSteps.Merge step, String exchange) throws TerminalActivityException {
        int partitions = partitions(exchange, "exchange topic of job '" + step.job() + "' (it was never created, or the job has ended)");
        if (step.exchangePartition() < 0 || step.exchangePartition() >= partitions) {
            throw new TerminalActivityException("an engine merge step of job '" + step.job() + "' needs 0 <= exchangePartition < "
                    + partitions + " (the partitions of " + exchange + "), was " + step.exchangePartition());
        }
        secret(step.job(), exchange, step.secret());
    }

    /** The step carries the secret its job wrote into {@code exchange}; the refusal never shows either secret. */
    private void secret(String job, String exchange, String claimed) throws TerminalActivityException {
        Uuid topicId = topicId(exchange);
        String known = topicId == null ? null : secrets.get(topicId);
        if (known != null && ExchangeSecret.matches(known, claimed)) {
            return;
        }
        Optional<String> current = ExchangeSecret.read(consumer, exchange);
        if (current.isPresent() && ExchangeSecret.matches(current.get(), claimed)) {
            if (secrets.size() >= SECRETS_KEPT) {
                secrets.clear();
            }
            if (topicId != null) {
                secrets.put(topicId, current.get());
            }
            return;
        }
        throw new TerminalActivityException("an engine step of job '" + job + "' does not carry the secret its job wrote into " + exchange
                + (current.isEmpty() ? " (the exchange has none: it was not created by a job of protocol version " + JobSteps.PROTOCOL_VERSION
                        + " or later)" : "") + ": a node runs only the steps of the job that created the exchange (run jobs with "
                + "`baton engine-group-by` or DistributedGroupBy), so that no one can have it read a topic for them");
    }

    private int partitions(String topic, String what) throws TerminalActivityException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            List<PartitionInfo> infos;
            try {
                infos = consumer.partitionsFor(topic, METADATA);
            } catch (InvalidTopicException e) {
                throw new TerminalActivityException(what + " '" + topic + "' is not a valid topic name: " + e.getMessage(), e);
            }
            if (infos != null && !infos.isEmpty()) {
                return infos.size();
            }
            if (!settling(deadline)) {
                throw new TerminalActivityException(what + " " + topic + " does not exist (asked for " + SETTLE.toSeconds() + " s)");
            }
        }
    }

    /** The partition's read_committed end offset (its last stable offset), asked again until it reaches {@code atLeast} or {@link #SETTLE} passes. */
    private long endOffset(TopicPartition tp, long atLeast) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            long end = consumer.endOffsets(List.of(tp), METADATA).get(tp);
            if (end >= atLeast || !settling(deadline)) {
                return end;
            }
        }
    }

    /** Waits a step of the settle window; false once it has passed. Interrupted (the node stopping), the step is retried elsewhere. */
    private static boolean settling(long deadline) {
        if (System.nanoTime() >= deadline) {
            return false;
        }
        try {
            Thread.sleep(SETTLE_STEP_MS); // metadata has no notification to wait on; bounded by SETTLE, as TopicCreator's wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking a step against the cluster", e);
        }
        return true;
    }

    /** The exchange's topic id, which tells its incarnations apart; null if the cluster does not say (then nothing is remembered). */
    private Uuid topicId(String exchange) {
        try {
            return admin.describeTopics(List.of(exchange)).topicNameValues().get(exchange).get(METADATA.toMillis(), TimeUnit.MILLISECONDS).topicId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking a step against the cluster", e);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    @Override
    public synchronized void close() {
        admin.close();
        consumer.close();
    }
}
