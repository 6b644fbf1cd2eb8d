package dev.baton.dispatcher;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.baton.dispatcher.internals.CallbackFuture;
import dev.baton.dispatcher.internals.PendingResults;
import dev.baton.dispatcher.internals.RequestIds;
import dev.baton.dispatcher.internals.ResultListener;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Outcome;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.Timeouts;
import dev.baton.metrics.BatonMetric;
import dev.baton.metrics.ClientMeters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * How a service asks Baton to run activities.
 *
 * <pre>{@code
 * try (DispatchClient client = DispatchClient.create(Map.of(
 *         "bootstrap.servers", "localhost:9092", "baton.client.id", "billing-1"), unmatched -> log(unmatched))) {
 *     ActivityOutcome outcome = client.dispatch(request).get();
 * }
 * }</pre>
 *
 * <p>Thread-safe. Each instance has a stable {@code baton.client.id}: its results are keyed by it and
 * it reads only the results partition the id maps to. Results with no pending future — earlier
 * incarnations' requests, fire-and-forget sends, futures that timed out, unmatched completions — go
 * to the {@link UnmatchedResultHandler}. Invalid requests fail fast with
 * {@link IllegalArgumentException}; nothing reaches the topic.
 *
 * <p>Every dispatch gets exactly one outcome. If the results listener stops on an error (an
 * authorization failure, a fatal consumer error), every waiting future fails with
 * {@link ResultListenerStoppedException}, and so does every later {@code dispatch}, {@code send} and
 * {@code cancel}: the client is unusable, {@link #close()} still works, and a new client with the same
 * {@code baton.client.id} receives the outcomes.
 *
 * <p>One live client per {@code baton.client.id}: {@code create} refuses a second one with
 * {@link ClientIdInUseException} while the first runs, and the first goes on. A client started again after
 * its predecessor closed starts at once; after a predecessor killed without {@code close()}, {@code create}
 * waits until the broker ends the dead one's group membership (its session timeout, 45 s by default), at
 * most {@code client.id.wait.ms}.
 */
public final class DispatchClient implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final DispatchClientConfig config;
    private final String clientId;
    private final SchemaRegistry registry;
    private final EventSerde<DispatchCommand> commands;
    private final Producer<byte[], byte[]> producer;
    private final PendingResults pending;
    /**
     * Where the stages callers attach to dispatch futures run ({@link CallbackFuture}). Not shut at close: a stage attached
     * to a future after it (to log its failure) must still run; the pool's daemon threads end when idle a minute.
     */
    private final ForkJoinPool callbacks;
    private final RequestIds requestIds = new RequestIds();
    /** Read once: a config lookup per dispatch is a few map lookups on the sending thread. */
    private final int maxPayloadBytes;
    private final ResultListener listener;
    private final Thread listenerThread;
    private final Clock clock;
    private volatile boolean closed;

    private final Timer latency;
    /** The Kafka client meters of this client's producer and results consumer. */
    private final ClientMeters clientMeters;

    private DispatchClient(DispatchClientConfig config, UnmatchedResultHandler unmatched, Clock clock,
                           MeterRegistry meters) {
        this(config, unmatched, clock, meters,
                producerConfig -> new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer()),
                consumerConfig -> new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
    }

    /**
     * As {@link #create}, with the Kafka clients made by {@code producers} and {@code consumers} from the
     * settings this client chose; the client owns and closes them. Unit tests run on
     * {@code MockProducer} and {@code MockConsumer} this way.
     */
    DispatchClient(DispatchClientConfig config, UnmatchedResultHandler unmatched, Clock clock, MeterRegistry meters,
                   Function<Map<String, Object>, Producer<byte[], byte[]>> producers,
                   Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers) {
        this(config, unmatched, clock, meters, producers, consumers, START_TIMEOUT);
    }

    /** As above, waiting at most {@code startTimeout} for the results listener to have a position. */
    DispatchClient(DispatchClientConfig config, UnmatchedResultHandler unmatched, Clock clock, MeterRegistry meters,
                   Function<Map<String, Object>, Producer<byte[], byte[]>> producers,
                   Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers, Duration startTimeout) {
        this.config = config;
        this.clientId = config.clientId();
        this.clock = clock;
        this.maxPayloadBytes = config.getInt(DispatchClientConfig.MAX_PAYLOAD_BYTES_CONFIG);
        this.latency = BatonMetric.DISPATCH_LATENCY.timer(meters);
        this.clientMeters = new ClientMeters(meters);
        this.registry = SchemaRegistry.forUrl(config.getString(DispatchClientConfig.SCHEMA_REGISTRY_URL_CONFIG), config.kafkaConfig());
        this.commands = EventSerde.of(DispatchCommand.class, registry);
        this.callbacks = callbackPool(clientId);
        this.pending = new PendingResults(config.getInt(DispatchClientConfig.MAX_PENDING_CONFIG),
                config.getLong(DispatchClientConfig.DISPATCH_TIMEOUT_MS_CONFIG), callbacks,
                nanos -> latency.record(nanos, TimeUnit.NANOSECONDS), requestIds);
        // A start that fails closes what it opened: the caller gets no client to close.
        Producer<byte[], byte[]> startedProducer = null;
        ResultListener startedListener = null;
        try {
            startedProducer = clientMeters.producer(producers.apply(producerConfig(config)), "dispatch");
            Duration clientIdWait = Duration.ofMillis(config.getLong(DispatchClientConfig.CLIENT_ID_WAIT_MS_CONFIG));
            startedListener = new ResultListener(clientId, config.kafkaConfig(), consumers, EventSerde.of(Outcome.class, registry), pending,
                    unmatched, clientIdWait, joined -> clientMeters.consumer(joined, "results"));
            this.listenerThread = new Thread(startedListener, "baton-results-" + clientId);
            listenerThread.setDaemon(true);
            listenerThread.start();
            startedListener.awaitPositioned(startTimeout.plus(clientIdWait));
        } catch (InterruptedException e) {
            closeAfterFailedStart(startedListener, startedProducer); // before re-interrupting: it waits for the listener thread
            Thread.currentThread().interrupt();
            throw new DispatchException("interrupted while starting client " + clientId + "; nothing it opened was left open", null, e);
        } catch (RuntimeException e) {
            closeAfterFailedStart(startedListener, startedProducer);
            throw e;
        }
        this.producer = startedProducer;
        this.listener = startedListener;
    }

    private static Map<String, Object> producerConfig(DispatchClientConfig config) {
        Map<String, Object> producerConfig = ClientConfigs.durableProducer(config.kafkaConfig());
        producerConfig.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
        // A batch fills only when requests wait behind one another (a burst, a loaded broker); then larger
        // batches mean fewer produce requests for the client and the broker. At light load a batch is sent
        // by its linger long before it fills, so this changes nothing there (docs/decisions.md).
        producerConfig.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        // Named, so its metrics, broker logs and network thread say whose it is.
        producerConfig.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "baton-dispatch-" + config.clientId());
        return producerConfig;
    }

    private void closeAfterFailedStart(ResultListener startedListener, Producer<byte[], byte[]> startedProducer) {
        if (startedListener != null) {
            startedListener.closeNow(); // its thread closes the consumer as it ends
        }
        if (startedProducer != null) {
            startedProducer.close(Duration.ZERO);
        }
        clientMeters.close();
        registry.close();
    }

    /**
     * Creates a started client; {@code configs} must name {@code baton.client.id}. A start that fails
     * leaves nothing open.
     *
     * @throws ClientIdInUseException if another live client holds {@code baton.client.id} after
     *         {@code client.id.wait.ms}
     * @throws ResultListenerStoppedException if the results listener stops before it has a position
     *         (e.g. the client may not read {@code baton.results})
     * @throws IllegalStateException if {@code baton.results} does not exist, or the listener has no
     *         position within 60 s (plus {@code client.id.wait.ms})
     */
    public static DispatchClient create(Map<String, ?> configs, UnmatchedResultHandler unmatched) {
        return create(configs, unmatched, new SimpleMeterRegistry());
    }

    /** As {@link #create(Map, UnmatchedResultHandler)}, registering the dispatch-to-outcome timer in {@code meters}. */
    public static DispatchClient create(Map<String, ?> configs, UnmatchedResultHandler unmatched,
                                        MeterRegistry meters) {
        return new DispatchClient(new DispatchClientConfig(configs), unmatched, Clock.systemUTC(), meters);
    }

    public String clientId() {
        return clientId;
    }

    /**
     * Dispatches one attempt and returns its outcome's future. The future fails with
     * {@link DispatchClientClosedException} if the client closes first, with
     * {@link ResultListenerStoppedException} if its results listener stops first, with a
     * {@link TimeoutException} after {@code dispatch.timeout.ms} when that is set, with a
     * {@link DispatchException} when the request was not written (while no broker answers, the send waits up to the
     * producer's {@code max.block.ms} on the calling thread first), and with a {@link DispatchUnacknowledgedException}
     * when the broker did not acknowledge it in time: it may still run; dispatch it again to join it.
     *
     * @throws ResultListenerStoppedException if the results listener has stopped; nothing is sent
     * @throws IllegalStateException if the client is closed
     */
    public CompletableFuture<ActivityOutcome> dispatch(ActivityRequest request) {
        requireOpen();
        DispatchCommand cmd = command(request);
        // The caller's future itself waits in the pending set: the stages it attaches run on the callback executor, not on
        // the results thread (CallbackFuture); it records the latency and leaves the set when it completes.
        CompletableFuture<ActivityOutcome> future = pending.register(cmd.getRequestId());
        try {
            // The producer's callback fails the pending future itself: a future per send only to pass its failure on was
            // two more objects and a completion per dispatch (docs/decisions.md, issue 29).
            send(request.site(), cmd, failure -> pending.fail(cmd.getRequestId(), failure), null);
        } catch (RuntimeException e) {
            pending.fail(cmd.getRequestId(), e); // the caller gets the exception, not the future: nothing else would resolve it
            throw e;
        }
        return future;
    }

    /**
     * Dispatches one attempt and returns its output read as {@code outputType} by the converter of the
     * output's content type ({@link PayloadConverters#defaults()}). Fails the future as
     * {@link #dispatch(ActivityRequest)} does, and besides: with {@link ActivityFailedException}
     * (carrying the outcome and its reason) when the activity failed, with
     * {@link dev.baton.schemas.payload.PayloadConversionException} when the output cannot be read as
     * {@code outputType}. Ask for {@code ActivityOutcome}'s raw bytes with {@code byte[].class}.
     *
     * <pre>{@code
     * Receipt receipt = client.dispatch(ActivityRequest.builder().site("shop", "order-42", "charge")
     *         .queue("payments").activityType("charge").input(new Charge("c-7", 1200)).build(), Receipt.class).get();
     * }</pre>
     */
    public <R> CompletableFuture<R> dispatch(ActivityRequest request, Class<R> outputType) {
        return dispatch(request, outputType, PayloadConverters.defaults());
    }

    /** As {@link #dispatch(ActivityRequest, Class)}, reading the output with {@code converters}. */
    public <R> CompletableFuture<R> dispatch(ActivityRequest request, Class<R> outputType, PayloadConverters converters) {
        Objects.requireNonNull(outputType, "outputType");
        Objects.requireNonNull(converters, "converters");
        CompletableFuture<R> typed = new CallbackFuture<>(callbacks);
        // Completed by hand, not by thenApply: the future fails with the exception itself, not wrapped in a CompletionException.
        dispatch(request).whenComplete((outcome, error) -> {
            if (error != null) {
                typed.completeExceptionally(error);
            } else if (!outcome.completed()) {
                typed.completeExceptionally(new ActivityFailedException(outcome));
            } else {
                try {
                    typed.complete(outcome.outputAs(outputType, converters));
                } catch (RuntimeException e) {
                    typed.completeExceptionally(e);
                }
            }
        });
        return typed;
    }

    /**
     * Fire-and-forget: completes when the broker has the request; the outcome goes to the unmatched handler. Fails with a
     * {@link DispatchException} when nothing was written, with a {@link DispatchUnacknowledgedException} when it may have been.
     *
     * @throws ResultListenerStoppedException if the results listener has stopped; nothing is sent
     * @throws IllegalStateException if the client is closed
     */
    public CompletableFuture<String> send(ActivityRequest request) {
        requireOpen();
        DispatchCommand cmd = command(request);
        return send(request.site(), cmd).thenApply(v -> cmd.getRequestId());
    }

    /** Asks Baton to cancel whatever attempt of the site is live; its caller gets a {@code cancelled:} outcome. */
    public CompletableFuture<Void> cancel(SiteKey site) {
        requireOpen();
        DispatchCommand cmd = DispatchCommand.newBuilder().setKind(DispatchKind.CANCEL).setSite(site.toRef())
                .setRequestId(requestIds.next()).setReplyKey(clientId).setAttempt(1)
                .setRequestedAtMillis(clock.millis()).build();
        return send(site, cmd);
    }

    /** The largest activity input this client sends ({@code max.payload.bytes}): a request with a larger one is refused. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public int pendingCount() {
        return pending.size();
    }

    /**
     * Why a dispatch's send failed, said so the caller knows whether it may still run. A record the broker may have
     * written (its acknowledgement did not come within {@code delivery.timeout.ms}) is not "could not send": it may run,
     * and its outcome would reach the unmatched handler (h/adv26 saw such outcomes counted as answers to requests never
     * sent).
     */
    private DispatchException sendFailure(String site, String requestId, Exception e, boolean mayBeWritten) {
        if (mayBeWritten && e instanceof RetriableException) {
            return new DispatchUnacknowledgedException(site + " (request " + requestId + "): the broker did not acknowledge it within "
                    + "delivery.timeout.ms (" + e.getMessage() + "); it may have been written and may run, its outcome then reaching the "
                    + "UnmatchedResultHandler. Dispatch the same request again (same site, attempt and run id): it joins that run if there "
                    + "is one and gets its one outcome", requestId, e);
        }
        String next = e instanceof org.apache.kafka.common.errors.TimeoutException
                ? "; no broker of " + config.kafkaConfig().get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) + " answered: dispatch it again once the cluster is reachable" : "";
        return new DispatchException("could not send " + site + " (request " + requestId + "): " + e.getMessage() + "; nothing was "
                + "written" + next, requestId, e);
    }

    private DispatchCommand command(ActivityRequest request) {
        if (request.input().length > maxPayloadBytes) {
            throw new IllegalArgumentException("input must be <= max.payload.bytes " + maxPayloadBytes + ", was " + request.input().length);
        }
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(request.site().toRef())
                .setRequestId(requestIds.next()).setReplyKey(clientId).setAttempt(request.attempt())
                .setRunId(request.runId()).setIdempotencyKey(request.idempotencyKey()).setQueue(request.queue())
                .setActivityType(request.activityType()).setNode(request.node())
                .setInput(new Payload(ByteBuffer.wrap(request.input()), request.contentType()))
                .setRetryPolicy(retryPolicy(request.retry())).setTimeouts(timeouts(request.timeouts()))
                .setRequestedAtMillis(clock.millis()).build();
    }

    private CompletableFuture<Void> send(SiteKey site, DispatchCommand cmd) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        send(site, cmd, acked::completeExceptionally, acked);
        return acked;
    }

    /**
     * Sends {@code cmd}; {@code failed} is told why a send failed as {@link #sendFailure} says it, {@code acked} (if any)
     * completes when the broker has it. A callback inside {@code send()} on this thread means the record never entered the
     * producer (no metadata within {@code max.block.ms}, say): nothing was written. A later one means it may have been.
     */
    private void send(SiteKey site, DispatchCommand cmd, java.util.function.Consumer<DispatchException> failed, CompletableFuture<Void> acked) {
        Thread caller = Thread.currentThread();
        boolean[] inSend = {true};
        producer.send(record(site, cmd), (meta, e) -> {
            if (e != null) {
                failed.accept(sendFailure(site.toString(), cmd.getRequestId(), e, !(inSend[0] && Thread.currentThread() == caller)));
            } else if (acked != null) {
                acked.complete(null);
            }
        });
        inSend[0] = false;
    }

    private ProducerRecord<byte[], byte[]> record(SiteKey site, DispatchCommand cmd) {
        return new ProducerRecord<>(BatonTopics.DISPATCH, site.toBytes(), commands.encode(BatonTopics.DISPATCH, cmd));
    }

    private static RetryPolicy retryPolicy(ActivityRequest.RetryOptions r) {
        return r == null ? null : new RetryPolicy(r.initialInterval().toMillis(), r.coefficient(), r.maxInterval().toMillis(),
                r.maxAttempts(), r.nonRetryableReasonPrefixes());
    }

    private static Timeouts timeouts(ActivityRequest.TimeoutOptions t) {
        if (t.equals(ActivityRequest.TimeoutOptions.NONE)) {
            return null;
        }
        return new Timeouts(millis(t.scheduleToStart()), millis(t.startToClose()), millis(t.scheduleToClose()), millis(t.heartbeat()));
    }

    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("DispatchClient " + clientId + " is closed");
        }
        listener.requireRunning();
    }

    /**
     * Stops reading results and fails every pending future with {@link DispatchClientClosedException}.
     * The activities keep running; their outcomes reach the next client with this clientId.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        producer.close(Duration.ofSeconds(10));
        listener.close();
        clientMeters.close();
        pending.close(requestId -> new DispatchClientClosedException("client " + clientId
                + " closed before the outcome arrived; it will reach the UnmatchedResultHandler of the next client with this id",
                requestId));
        registry.close();
    }

    /**
     * One thread while stages do not wait; a stage that waits on another future with {@code join} or {@code get} makes
     * the pool run the stages behind it on a spare thread (ForkJoinPool's managed blocking), so no stage waits on one
     * queued behind it. FIFO: callers' stages run in the order their outcomes arrived.
     */
    private static ForkJoinPool callbackPool(String clientId) {
        AtomicInteger threads = new AtomicInteger();
        return new ForkJoinPool(1, pool -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName("baton-callbacks-" + clientId + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, null, true);
    }
}
