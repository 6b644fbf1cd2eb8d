package dev.baton.dispatcher.internals;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ClientIdInUseException;
import dev.baton.dispatcher.ResultListenerStoppedException;
import dev.baton.dispatcher.UnmatchedResultHandler;
import dev.baton.events.Outcome;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.ClientIds;
import dev.baton.topics.KeyedPartitionReader;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the one partition of {@code baton.results} that this client's id maps to, keeps the records
 * addressed to it, and completes pending futures or hands the rest to the unmatched handler.
 *
 * <p>Offsets are committed under group {@code baton-dispatcher-<clientId>}, so a restarted client resumes where it
 * stopped and sees every result it missed. The consumer is that group's one static member ({@link ResultsMembership}):
 * while it runs, a second client with its id is refused at start, after waiting {@code client.id.wait.ms} for a killed
 * predecessor's membership to lapse. It is assigned every partition of {@code baton.results}, reads only its own and
 * leaves the others paused; it commits only its own.
 *
 * <p>Retriable consumer errors are retried inside the consumer; anything that escapes it stops the
 * listener for good: every pending future fails with {@link ResultListenerStoppedException} and the
 * pending results refuse new requests (see docs/decisions.md, "A results listener that stops").
 */
public final class ResultListener implements Runnable, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ResultListener.class);
    /** How often the read position is committed while results arrive. */
    static final Duration COMMIT_EVERY = Duration.ofMillis(100);
    static final Duration RETRY_BACKOFF = Duration.ofMillis(500);

    /** How long a start waits for a killed client's hold on the id to lapse, unless told otherwise. */
    public static final Duration DEFAULT_CLIENT_ID_WAIT = Duration.ofSeconds(60);
    /** Between two attempts to join while another member holds the id. */
    static final Duration JOIN_RETRY_EVERY = Duration.ofSeconds(1);

    private final String clientId;
    private final Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers;
    private final Map<String, Object> consumerConfig;
    private final Duration clientIdWait;
    /** Replaced only while joining, when the coordinator refused the one before; read by close() from another thread. */
    private volatile Consumer<byte[], byte[]> consumer;
    private KeyedPartitionReader reader;
    private final TopicPartition partition;
    private final ResultsPartitionCount partitionCount;
    /** The last periodic commit failed (set by its callback, on this listener's thread, inside a poll). */
    private boolean commitFailed;
    /** Set once this listener holds the id and reads its partition; partitions assigned before then wait paused. */
    private volatile boolean joined;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final java.util.function.Consumer<Consumer<byte[], byte[]>> onJoined;
    private final EventSerde<Outcome> serde;
    private final PendingResults pending;
    private final DeliveredOutcomes delivered = new DeliveredOutcomes();
    private final UnmatchedResultHandler unmatched;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Throwable stoppedBy;
    /** When a paused read of a result that failed retriably resumes (System.nanoTime), 0 when not paused. */
    private long resumeAtNanos;

    public ResultListener(String clientId, Map<String, Object> kafkaConfig, EventSerde<Outcome> serde,
                          PendingResults pending, UnmatchedResultHandler unmatched) {
        this(clientId, kafkaConfig, config -> new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                serde, pending, unmatched);
    }

    /** As below, waiting {@link #DEFAULT_CLIENT_ID_WAIT} for a killed predecessor's hold on the id to lapse. */
    public ResultListener(String clientId, Map<String, Object> kafkaConfig,
                          Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers,
                          EventSerde<Outcome> serde, PendingResults pending, UnmatchedResultHandler unmatched) {
        this(clientId, kafkaConfig, consumers, serde, pending, unmatched, DEFAULT_CLIENT_ID_WAIT, joined -> { });
    }

    /**
     * As above, with the consumer made by {@code consumers} from the settings this listener chose; the
     * listener owns it and closes it (and makes another if the group refused it while a killed predecessor's hold on the
     * id lapses). Unit tests read through a {@code MockConsumer} this way. {@code clientIdWait}: how long a start waits
     * for another member holding the id to go before it stops with {@link ClientIdInUseException}. {@code onJoined} is
     * given the consumer that holds the id, once (its meters are bound then: a refused consumer's would shadow them).
     */
    public ResultListener(String clientId, Map<String, Object> kafkaConfig,
                          Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers,
                          EventSerde<Outcome> serde, PendingResults pending, UnmatchedResultHandler unmatched, Duration clientIdWait,
                          java.util.function.Consumer<Consumer<byte[], byte[]>> onJoined) {
        this.clientId = clientId;
        this.onJoined = onJoined;
        this.serde = serde;
        this.pending = pending;
        this.unmatched = unmatched;
        this.consumers = consumers;
        this.clientIdWait = clientIdWait;
        Map<String, Object> config = ClientConfigs.groupConsumer(kafkaConfig, ClientIds.dispatcherGroup(clientId), "latest");
        config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "baton-results-" + clientId);
        this.consumerConfig = ResultsMembership.memberConfig(config);
        this.consumer = consumers.apply(Map.copyOf(consumerConfig));
        try {
            this.reader = KeyedPartitionReader.unassigned(consumer, BatonTopics.RESULTS, clientId, Duration.ofSeconds(30));
            this.partition = reader.partition();
            this.partitionCount = new ResultsPartitionCount(clientId, partition);
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO)); // nobody gets this listener, so nobody else would close it
            throw e;
        }
    }

    /** The results partition a client id maps to: the default partitioner's choice for that key. */
    public static int partitionFor(String clientId, int partitions) {
        return BatonTopics.resultsPartition(clientId, partitions);
    }

    /**
     * Blocks until the listener has a position, so no result of a dispatch sent afterwards is missed.
     *
     * @throws ResultListenerStoppedException if it stopped on an error instead
     * @throws IllegalStateException if it has no position within {@code timeout}
     */
    public void awaitPositioned(Duration timeout) throws InterruptedException {
        if (!positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("result listener for " + clientId + " not positioned on " + partition + " within " + timeout);
        }
        if (stoppedBy instanceof ClientIdInUseException inUse) {
            throw inUse; // a user error, said as such: not "the listener stopped"
        }
        requireRunning();
    }

    /** @throws ResultListenerStoppedException if the listener stopped on an error: no outcome reaches this client any more */
    public void requireRunning() {
        Throwable cause = stoppedBy;
        if (cause != null) {
            throw new ResultListenerStoppedException(clientId, cause, null);
        }
    }

    @Override
    public void run() {
        try {
            if (!join()) {
                return;
            }
            onJoined.accept(consumer);
            partitionCount.startFromBeginningIfMoved(consumer);
            long position = reader.position(KeyedPartitionReader.Start.COMMITTED, Duration.ofSeconds(30));
            log.debug("client {} reads results from {} at offset {}", clientId, partition, position);
            // Committed before any dispatch can be sent: a new client id has no committed offset, and one killed before its
            // first outcome arrived left none, so its successor started at the end and never saw the outcomes written
            // meanwhile (adv23c, Adv23cClientCrashIT). Re-committing a position read from the committed offset changes nothing.
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(position)), Duration.ofSeconds(30));
            joined = true;
            consumer.resume(List.of(partition));
            positioned.countDown();
            long lastCommit = System.nanoTime();
            boolean uncommitted = false;
            while (running) {
                resumeAfterBackoff();
                partitionCount.requireSameIfDue(consumer);
                boolean any = false;
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(100))) {
                    try {
                        handle(r);
                    } catch (RetriableException e) {
                        backOff(r, e);
                        break;
                    }
                    any = true;
                }
                uncommitted |= any;
                // At most one commit per COMMIT_EVERY: one per poll was a tenth of this thread and a write to
                // __consumer_offsets per batch; a restart reads again at most that much, and copies are dropped.
                if ((uncommitted || commitFailed) && System.nanoTime() - lastCommit >= COMMIT_EVERY.toNanos()) {
                    commitFailed = false;
                    consumer.commitAsync(ownPosition(), this::onPeriodicCommit);
                    lastCommit = System.nanoTime();
                    uncommitted = false;
                }
            }
            consumer.commitSync(ownPosition(), Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            stopOn(e);
        } catch (Error e) {
            stopOn(e);
            throw e;
        } finally {
            positioned.countDown(); // after stopOn(): a start still waiting learns why
            // Leaves the group at once: a client started again under this id need not wait for this one's session to lapse.
            if (consumer != null) {
                consumer.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP).withTimeout(Duration.ofSeconds(5)));
            }
            stopped.countDown();
        }
    }

    /**
     * Joins group {@code baton-dispatcher-<id>} as its static member and waits to be assigned this id's partition. While
     * another member holds the id (a live client, or a killed one whose session has not lapsed yet) the coordinator
     * refuses the join; this listener tries again every {@link #JOIN_RETRY_EVERY} with a new consumer (a refused one is
     * done for) until {@code clientIdWait} has passed, then stops with {@link ClientIdInUseException}.
     *
     * @return false if the listener was closed meanwhile
     */
    private boolean join() {
        long deadline = System.nanoTime() + clientIdWait.toNanos();
        boolean warned = false;
        while (true) {
            consumer.subscribe(List.of(partition.topic()), new PauseOthers());
            try {
                while (!consumer.assignment().contains(partition)) {
                    if (!running) {
                        return false;
                    }
                    consumer.poll(Duration.ofMillis(100));
                }
                if (warned) {
                    log.info("client {}: holds its id now; the member that held group {} left", clientId, consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG));
                }
                return true;
            } catch (RuntimeException e) {
                if (!ResultsMembership.refused(e)) {
                    throw e;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw inUse(e);
                }
                if (!warned) {
                    log.warn("client {}: another member of group {} holds this baton.client.id; waiting up to {} ms for it to go "
                            + "(a client killed holds it until its session lapses; a live one does for good)", clientId,
                            consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG), clientIdWait.toMillis());
                    warned = true;
                }
                consumer.close(CloseOptions.timeout(Duration.ZERO));
                try {
                    if (stopRequested.await(JOIN_RETRY_EVERY.toMillis(), TimeUnit.MILLISECONDS)) {
                        consumer = null; // closed: the finally block must not close it again
                        return false;
                    }
                } catch (InterruptedException interrupted) {
                    consumer = null;
                    Thread.currentThread().interrupt();
                    throw new InterruptException(interrupted);
                }
                consumer = consumers.apply(Map.copyOf(consumerConfig));
                reader = KeyedPartitionReader.unassigned(consumer, partition.topic(), clientId, Duration.ofSeconds(30));
            }
        }
    }

    private ClientIdInUseException inUse(RuntimeException refusal) {
        return new ClientIdInUseException(clientId, "baton.client.id must be unique among live DispatchClients; '" + clientId
                + "' is held by another live client (the member of group " + consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG)
                + "), after waiting " + clientIdWait.toMillis() + " ms (client.id.wait.ms) for it to go. Give this client another "
                + "baton.client.id, or close the other one first. If the other was killed, the broker ends its membership after "
                + "group.consumer.session.timeout.ms (45 s by default): create this client again then", refusal);
    }

    /**
     * Pauses every partition assigned before this listener holds the id and is positioned, and after that every other
     * partition: the group gives its one member all of {@code baton.results}, and this client reads only its own.
     */
    private final class PauseOthers implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            List<TopicPartition> pause = assigned.stream().filter(tp -> !joined || !tp.equals(partition)).toList();
            consumer.pause(pause);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            // nothing to hand over: no other member ever reads these
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            if (lost.contains(partition)) {
                log.warn("client {}: lost its membership of group {} (no heartbeat within the session); rejoining, reading {} again "
                        + "from the last commit", clientId, consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG), partition);
            }
        }
    }

    /**
     * A periodic commit that failed retriably is made again an interval later, results or not. A failure costs at most a
     * re-read of that much after a restart (copies are dropped), and a coordinator on the move fails a few in a broker
     * restart: expected, so not an ERROR (Kafka's own callback, used before, logged each as one). Any other failure is
     * logged and the commit waits for the next result, as before (not retried ten times a second).
     */
    private void onPeriodicCommit(Map<TopicPartition, OffsetAndMetadata> offsets, Exception e) {
        if (e == null) {
            return;
        }
        if (e instanceof RetriableException) {
            commitFailed = true;
            log.debug("client {}: committing its results position failed, trying again: {}", clientId, e.toString());
        } else {
            log.warn("client {}: committing its results position failed: {}", clientId, e.toString());
        }
    }

    /** The read position of this client's partition, the only one it commits: the paused others' positions mean nothing. */
    private Map<TopicPartition, OffsetAndMetadata> ownPosition() {
        return Map.of(partition, new OffsetAndMetadata(consumer.position(partition)));
    }

    /**
     * A result that could not be read for a reason that passes (the schema registry unreachable, say)
     * is read again after a pause, from its own offset: skipping it would lose an outcome, and
     * stopping would fail every caller of this client for a blip.
     */
    private void backOff(ConsumerRecord<byte[], byte[]> r, RetriableException e) {
        log.warn("client {}: cannot read the result at {}-{} offset {} yet ({}); trying again in {} ms", clientId, r.topic(), r.partition(),
                r.offset(), e.toString(), RETRY_BACKOFF.toMillis());
        consumer.seek(partition, r.offset());
        consumer.pause(List.of(partition));
        resumeAtNanos = System.nanoTime() + RETRY_BACKOFF.toNanos();
    }

    private void resumeAfterBackoff() {
        if (resumeAtNanos != 0 && System.nanoTime() - resumeAtNanos >= 0) {
            consumer.resume(List.of(partition));
            resumeAtNanos = 0;
        }
    }

    /** Ends the listener on {@code cause}: unless it was asked to stop, no outcome would reach a caller again. */
    private void stopOn(Throwable cause) {
        if (!running) {
            if (!(cause instanceof WakeupException)) {
                log.warn("client {}: result listener failed while stopping on {}: {}", clientId, partition, cause.toString(), cause);
            }
            return; // the client closes its pending results itself
        }
        if (cause instanceof ClientIdInUseException) {
            log.warn("client {}: not started: {}", clientId, cause.getMessage()); // the caller's mistake, thrown to it by create
        } else {
            log.error("client {}: result listener stopped on {}; failing every pending dispatch: {}", clientId, partition, cause.toString(), cause);
        }
        stoppedBy = cause; // before the futures fail: whoever sees a failure sees the client refuse
        pending.close(requestId -> new ResultListenerStoppedException(clientId, cause, requestId));
    }

    private void handle(ConsumerRecord<byte[], byte[]> r) {
        ActivityOutcome outcome;
        try {
            Outcome event = serde.decode(r);
            if (event == null) {
                log.error("client {}: skipping a result without a value at {}-{} offset {}", clientId, r.topic(), r.partition(), r.offset());
                return;
            }
            outcome = ActivityOutcome.of(event);
        } catch (UndecodableRecordException | IllegalArgumentException e) {
            // IllegalArgumentException: decodable, but not an outcome a caller can be given (an empty site id).
            log.error("client {}: skipping undecodable result: {}", clientId, e.getMessage());
            return;
        }
        if (!outcome.unmatched() && delivered.isCopy(outcome)) {
            log.debug("client {}: dropping a copy of the outcome of request {}, delivered already", clientId, outcome.requestId());
            return;
        }
        if (outcome.unmatched() || !pending.complete(outcome.requestId(), outcome)) {
            try {
                unmatched.handle(outcome);
            } catch (RuntimeException e) {
                log.error("client {}: UnmatchedResultHandler threw on {}", clientId, outcome, e);
            }
        }
    }

    public Set<TopicPartition> assignment() {
        return Set.of(partition);
    }

    /** Commits what was handled and stops. */
    @Override
    public void close() {
        stopWithin(Duration.ofSeconds(10));
    }

    /** Stops at once, waking the consumer from whatever it waits for, without the final commit: for a start that failed. */
    public void closeNow() {
        stopWithin(Duration.ZERO);
    }

    private void stopWithin(Duration grace) {
        running = false;
        stopRequested.countDown();
        try {
            if (!stopped.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                Consumer<byte[], byte[]> current = consumer;
                if (current != null) {
                    current.wakeup();
                }
                stopped.await(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
