package dev.baton.worker.internals;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.worker.CompletionRef;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends completions, failures, heartbeats and parks on an idempotent, non-transactional producer.
 * Leases travel in the poll batch's transaction instead; the streams app accepts a completion that
 * overtakes its lease. A separate producer measured faster than folding completions into the next
 * transaction (p50 33 vs 50 ms at 2,000/s).
 */
public final class EventSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EventSender.class);

    private final Producer<byte[], byte[]> producer;
    private final EventSerde<WorkerEvent> serde;
    private final String workerId;
    private final Clock clock;
    /** The streams app's limits on a report: what it would dead-letter is never sent as is. */
    private final ReportLimits limits;
    private volatile boolean abandoned;
    private volatile boolean closed;
    /** Between two sends of a result the broker did not take (see {@link #sendUntilDone}). */
    static final Duration RESEND_EVERY = Duration.ofSeconds(1);
    private final Duration resendEvery;
    private ScheduledExecutorService resends;

    /** @param limits the streams app's limits on a report (its {@code max.payload.bytes}) */
    public EventSender(Map<String, Object> kafkaConfig, EventSerde<WorkerEvent> serde, String workerId, Clock clock, ReportLimits limits) {
        this(new KafkaProducer<>(producerConfig(kafkaConfig, workerId), new ByteArraySerializer(), new ByteArraySerializer()), serde,
                workerId, clock, limits);
    }

    /** As above, with the producer's metrics bound to {@code meters}. */
    public EventSender(Map<String, Object> kafkaConfig, EventSerde<WorkerEvent> serde, String workerId, Clock clock, ReportLimits limits,
                       ClientMeters meters) {
        this(meters.producer(new KafkaProducer<>(producerConfig(kafkaConfig, workerId), new ByteArraySerializer(), new ByteArraySerializer()),
                "worker-events"),
                serde, workerId, clock, limits);
    }

    /** On a producer of the caller's: tests pass Kafka's {@code MockProducer}. */
    EventSender(Producer<byte[], byte[]> producer, EventSerde<WorkerEvent> serde, String workerId, Clock clock) {
        this(producer, serde, workerId, clock, ReportLimits.defaults());
    }

    EventSender(Producer<byte[], byte[]> producer, EventSerde<WorkerEvent> serde, String workerId, Clock clock, ReportLimits limits) {
        this(producer, serde, workerId, clock, limits, RESEND_EVERY);
    }

    /** As above, sending a result the broker did not take again every {@code resendEvery}: tests wait less. */
    EventSender(Producer<byte[], byte[]> producer, EventSerde<WorkerEvent> serde, String workerId, Clock clock, ReportLimits limits,
                Duration resendEvery) {
        this.resendEvery = resendEvery;
        this.limits = limits;
        this.producer = producer;
        this.serde = serde;
        this.workerId = workerId;
        this.clock = clock;
    }

    private static Map<String, Object> producerConfig(Map<String, Object> kafkaConfig, String workerId) {
        Map<String, Object> config = ClientConfigs.durableProducer(kafkaConfig);
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
        // As the dispatch client's: fuller batches, so fewer produce requests, once requests queue (docs/decisions.md).
        config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        // Named, so its metrics, broker logs and network thread say whose it is.
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "baton-worker-events-" + workerId);
        return config;
    }

    /**
     * Reports a completion; the output keeps the content type its handler's converter gave it. An
     * output over {@code max.payload.bytes} is reported as a terminal failure naming the limit and
     * the size: sent as is, the streams app would dead-letter it, the lease would be lost and the
     * handler run again, for nothing. An output whose converter named a content type over the bound
     * every id has is refused the same way, as {@code OutputContentType}.
     */
    public void completed(Execution e, EncodedPayload output) {
        Optional<String> tooLarge = limits.outputProblem(output == null ? 0 : output.data().length);
        if (tooLarge.isPresent()) {
            refuseOutput(e, "OutputTooLarge", tooLarge.get());
            return;
        }
        Optional<String> badType = limits.outputContentTypeProblem(output == null ? null : output.contentType());
        if (badType.isPresent()) {
            refuseOutput(e, "OutputContentType", badType.get());
            return;
        }
        send(e, WorkerEventKind.COMPLETED, output, null, null, null);
    }

    private void refuseOutput(Execution e, String type, String problem) {
        log.warn("worker {}: {} attempt {} output not sent: {}; reported as a terminal failure", workerId, e.site(), e.attempt(), problem);
        failed(e, Reasons.TERMINAL + " " + type + ": " + problem, ActivityFailure.of(type, problem));
    }

    /**
     * Reports a failure: the reason is the contract, the failure (null for none) is for the caller.
     * It carries the run's last checkpoint, so the next attempt resumes from it even if no heartbeat
     * went out since. A reason over the streams app's bound is cut, a failure it would refuse is sent
     * without what it refuses (said so in its message).
     */
    public void failed(Execution e, String reason, ActivityFailure failure) {
        ActivityFailure sent = failure;
        Optional<String> problem = failure == null ? Optional.empty() : limits.failureProblem(failure.toAvro());
        if (problem.isPresent()) {
            sent = ActivityFailure.of(failure.type(), failure.message() + " (failure not sent whole: " + problem.get() + ")");
        }
        send(e, WorkerEventKind.FAILED, null, ReportLimits.trimReason(reason), sent, e.heartbeatDetails());
    }

    public void heartbeat(Execution e) {
        send(e, WorkerEventKind.HEARTBEAT, null, null, null, e.heartbeatDetails());
    }

    /** Gives the generation back, with its last checkpoint: the next generation resumes from it. */
    public void parked(Execution e) {
        send(e, WorkerEventKind.PARKED, null, "parked: worker " + workerId + " is draining", null, e.heartbeatDetails());
    }

    /** Builds the record of a lease, for the poll batch's transaction. */
    public ProducerRecord<byte[], byte[]> leaseRecord(Execution e) {
        return record(e.ref(), WorkerEventKind.LEASED, null, null, null, null);
    }

    /**
     * Reports on a generation by reference (an async completion, from any thread or process); the
     * future completes when the broker acknowledged the report, or fails with the send's error.
     *
     * @throws IllegalArgumentException naming the limit and the value, for a report the streams app
     *         would dead-letter (an output, reason, failure or heartbeat details over its limits):
     *         nothing is sent, and the holder can send a smaller one
     */
    public CompletableFuture<Void> report(CompletionRef ref, WorkerEventKind kind, EncodedPayload output, String reason,
                                          ActivityFailure failure, EncodedPayload details) {
        WorkerEvent event = event(ref, kind, output, reason, failure, details);
        Optional<String> problem = limits.problemWith(event);
        if (problem.isPresent()) {
            throw new IllegalArgumentException(kind + " for " + ref + " not sent: " + problem.get());
        }
        if (closed) { // Kafka's own message named neither the worker nor the way on (h/adv22w)
            throw new IllegalStateException("worker " + workerId + " was closed: nothing more is sent through it; report on " + ref
                    + " with an ActivityCompletionClient and the handle's token()");
        }
        CompletableFuture<Void> sent = new CompletableFuture<>();
        if (abandoned) {
            sent.completeExceptionally(new IllegalStateException("worker " + workerId + " was killed: nothing more is sent"));
            return sent;
        }
        producer.send(record(ref, event), (meta, ex) -> {
            if (ex == null) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(ex);
            }
        });
        return sent;
    }

    /** Sends {@code record} (a lease, under plain leases) on this producer, after every report sent before it. */
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
        return producer.send(record);
    }

    public void flush() {
        producer.flush();
    }

    private void send(Execution e, WorkerEventKind kind, EncodedPayload output, String reason, ActivityFailure failure,
                      EncodedPayload details) {
        if (abandoned) {
            return;
        }
        ProducerRecord<byte[], byte[]> record = record(e.ref(), kind, output, reason, failure, details);
        DeferredLease lease = e.deferredLease();
        if (lease == null) {
            sendUntilDone(e, kind, record, ex -> { });
            return;
        }
        synchronized (lease) {
            boolean leases = lease.settle(); // this report reaches the streams app first: it is the lease
            try {
                sendUntilDone(e, kind, record, ex -> {
                    if (leases) {
                        lease.acknowledged(ex);
                    }
                });
            } catch (RuntimeException ex) {
                if (leases) {
                    lease.acknowledged(ex); // a send that threw has no callback: the lease fails now, and is sent again
                }
                throw ex;
            }
        }
    }

    /**
     * Sends the run's {@code LEASED} event unless a report of the run was sent first (then that report
     * leased it). Called when the run outlived the lease deferral of {@link PlainLeases}.
     */
    public void deferredLease(Execution e) {
        DeferredLease lease = e.deferredLease();
        synchronized (lease) {
            if (!lease.settle()) {
                return;
            }
            if (abandoned) {
                lease.acknowledged(new IllegalStateException("worker " + workerId + " was killed: nothing more is sent"));
                return;
            }
            try {
                producer.send(leaseRecord(e), (meta, ex) -> {
                    warnIfLost(e, WorkerEventKind.LEASED, ex);
                    lease.acknowledged(ex);
                });
            } catch (RuntimeException ex) {
                // Settled but not sent: failed now, so the batch read again sends it again (PlainLeases.rejoin) instead of
                // waiting on a proof that never comes (h/adv21).
                lease.acknowledged(ex);
                throw ex;
            }
        }
    }

    /**
     * Sends {@code record}; a run's result (a completion, a failure, a park) whose send failed for a reason that passes
     * is sent again every {@link #RESEND_EVERY} (a test's {@code resendEvery}) until it is acknowledged or this sender is
     * closed. A broker away for longer than the producer's limits ({@code max.block.ms} for metadata,
     * {@code delivery.timeout.ms}) failed the send, and the finished result was dropped: the run was given up at its
     * heartbeat deadline and run again (h/adv26). A copy that reaches the streams app twice is refused by its token. Heartbeats are not sent again: the next one
     * replaces a lost one. {@code done} is told the final error, or null.
     */
    private void sendUntilDone(Execution e, WorkerEventKind kind, ProducerRecord<byte[], byte[]> record, Consumer<Exception> done) {
        producer.send(record, (meta, ex) -> {
            if (ex instanceof RetriableException && kind != WorkerEventKind.HEARTBEAT && !abandoned && !closed) {
                log.warn("worker {}: {} for {} not sent yet ({}); sending it again every {} ms until the broker takes it", workerId, kind,
                        e.site(), ex.toString(), resendEvery.toMillis());
                resends().schedule(() -> resend(e, kind, record, done), resendEvery.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            warnIfLost(e, kind, ex);
            done.accept(ex);
        });
    }

    private void resend(Execution e, WorkerEventKind kind, ProducerRecord<byte[], byte[]> record, Consumer<Exception> done) {
        if (abandoned || closed) {
            Exception gone = new IllegalStateException("worker " + workerId + " was closed before the broker took it");
            warnIfLost(e, kind, gone);
            done.accept(gone);
            return;
        }
        try {
            sendUntilDone(e, kind, new ProducerRecord<>(record.topic(), record.partition(), record.key(), record.value()), done);
        } catch (RuntimeException ex) { // a producer closed meanwhile: no callback comes
            warnIfLost(e, kind, ex);
            done.accept(ex);
        }
    }

    /** The thread that sends results again, made when the first one needs it: most workers never lose a send. */
    private synchronized ScheduledExecutorService resends() {
        if (resends == null) {
            resends = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "baton-worker-resend-" + workerId);
                t.setDaemon(true);
                return t;
            });
        }
        return resends;
    }

    private synchronized void stopResends() {
        if (resends != null) {
            resends.shutdownNow();
        }
    }

    private void warnIfLost(Execution e, WorkerEventKind kind, Exception ex) {
        if (ex != null && !abandoned) {
            log.warn("worker {}: {} for {} not sent: {}", workerId, kind, e.site(), ex.toString());
        }
    }

    private ProducerRecord<byte[], byte[]> record(CompletionRef ref, WorkerEventKind kind, EncodedPayload output, String reason,
                                                  ActivityFailure failure, EncodedPayload details) {
        return record(ref, event(ref, kind, output, reason, failure, details));
    }

    private ProducerRecord<byte[], byte[]> record(CompletionRef ref, WorkerEvent event) {
        return new ProducerRecord<>(BatonTopics.WORKER_EVENTS, ref.site().toBytes(), serde.encode(BatonTopics.WORKER_EVENTS, event));
    }

    private WorkerEvent event(CompletionRef ref, WorkerEventKind kind, EncodedPayload output, String reason, ActivityFailure failure,
                              EncodedPayload details) {
        Payload out = kind == WorkerEventKind.COMPLETED ? (output == null ? EncodedPayload.octetStream(null) : output).toPayload() : null;
        return WorkerEvent.newBuilder().setKind(kind).setSite(ref.site().toRef()).setAttempt(ref.attempt())
                .setGeneration(ref.generation()).setToken(ref.token()).setWorkerId(workerId).setOutput(out).setReason(reason)
                .setFailure(failure == null ? null : failure.toAvro())
                .setHeartbeatDetails(details == null ? null : ByteBuffer.wrap(details.data()))
                .setHeartbeatContentType(details == null ? null : details.contentType()).setAtMillis(clock.millis()).build();
    }

    /** As a crash would: from now on nothing is sent, and whatever is still buffered is dropped. */
    public void abandon() {
        abandoned = true;
        stopResends();
        producer.close(Duration.ZERO);
    }

    @Override
    public void close() {
        closed = true;
        stopResends();
        producer.close(Duration.ofSeconds(10));
    }
}
