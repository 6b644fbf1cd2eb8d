package dev.baton.streams;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.baton.metrics.KafkaClientTags;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistryRestServer;
import dev.baton.streams.config.CommitPacing;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.streams.config.InstanceAgreement;
import dev.baton.streams.names.TopologyNames;
import dev.baton.streams.processor.AdminQueueDirectory;
import dev.baton.streams.processor.TaskSubjects;
import dev.baton.streams.processor.InputPartitions;
import dev.baton.streams.processor.DrainSignallingClientSupplier;
import dev.baton.streams.processor.DeadLetterProcessingHandler;
import dev.baton.streams.processor.QueueService;
import dev.baton.streams.processor.EventSerdes;
import dev.baton.streams.processor.SiteMetrics;
import dev.baton.streams.processor.PauseGuard;
import dev.baton.streams.processor.SiteProcessorSupplier;
import dev.baton.streams.recovery.HangingTransactionFinder;
import dev.baton.streams.recovery.AbandonedTransactionFencer;
import dev.baton.streams.recovery.HangingTransactionReaper;
import dev.baton.streams.status.QueueLagMeter;
import dev.baton.streams.status.StatusEndpoints;
import dev.baton.streams.status.StatusServer;
import dev.baton.streams.topology.BatonTopology;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientIds;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams app process: the topology that owns site, fence and deadline state, running under
 * exactly-once. {@link #start()} returns once Streams is starting; {@link #close()} shuts it down
 * cleanly (committing the open transaction) and is safe to call from a shutdown hook.
 */
public final class BatonStreamsApp implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatonStreamsApp.class);
    /** A crashed instance's transaction is ended within this of reaching transaction.fence.after.ms; a listing costs one request per broker. */
    private static final Duration FENCE_CHECK_INTERVAL = Duration.ofSeconds(1);
    /** A read of one small topic: a newcomer that claimed over a lost agreement stops within this of being written over. */
    private static final Duration AGREEMENT_CHECK_EVERY = Duration.ofSeconds(10);

    private final StreamsAppConfig config;
    private final SchemaRegistry registry;
    private final AdminQueueDirectory queues;
    private final TaskSubjects taskSubjects;
    private final Admin partitionsAdmin;
    private final KafkaStreams streams;
    private final QueueService queueService;
    private final EventSerdes serdes;
    private final MeterRegistry meters;
    private final KafkaStreamsMetrics streamsMetrics;
    private final HttpHandler queries;
    private StatusServer status;
    private SchemaRegistryRestServer registryRest;
    private QueueLagMeter lag;
    private HangingTransactionReaper reaper;
    private AbandonedTransactionFencer fencer;
    private final PauseGuard pauseGuard;
    private final Object stateChanged = new Object();
    /**
     * Checks the instance agreement again each time the app reaches RUNNING and every {@link #AGREEMENT_CHECK_EVERY}
     * while it runs, off the stream threads: the check at start misses an instance not yet in the group.
     */
    private final ScheduledExecutorService agreementChecks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-agreement-check");
        t.setDaemon(true);
        return t;
    });
    /** Why this instance stopped itself: its guarantee or key is no longer the one in force. */
    private volatile IllegalStateException refusal;

    public BatonStreamsApp(Map<String, ?> configs, MeterRegistry meters) {
        // First: a filter applies only to meters registered after it, and Micrometer warns when one comes later.
        KafkaClientTags.installOn(meters); // no process UUID in the client and thread labels
        this.config = new StreamsAppConfig(configs);
        this.registry = SchemaRegistry.forUrl(config.schemaRegistryUrl(), config.clientConfig());
        this.queues = new AdminQueueDirectory(Admin.create(config.adminConfig()), config.queueRefreshMs());
        this.partitionsAdmin = Admin.create(config.adminConfig());
        this.serdes = EventSerdes.of(registry);
        this.taskSubjects = new TaskSubjects(serdes.task());
        queues.onTopics(taskSubjects::seen);
        this.queueService = new QueueService(meters);
        SiteProcessorSupplier supplier = new SiteProcessorSupplier(new SiteProcessorSupplier.Settings(serdes,
                new SiteMetrics(meters), queues, queueService, config.workerStaleMs(), config.defaultRetryPolicy(), config.heartbeatWindowMs(), config.dedupeWindowMs(),
                config.timerResolutionMs(), config.maxPayloadBytes(), config.transportLossBudget(),
                QueueTimeouts.from(configs), InputPartitions.of(partitionsAdmin), config.atLeastOnce(),
                config.sitesCached(), config.tokenKey()));
        // At-least-once has no fencing: a step decided after the JVM was paused past its whole group session is not
        // written (PauseGuard; h/adv23x). Exactly-once fences such a zombie's transaction. Not half the session: a trip
        // closes the tasks dirty while the thread's producer may still hold their writes (a broker down), and on a loaded
        // host a 3 s gap under a 6 s session tripped it where no session had lapsed; the run then answered a request twice.
        this.pauseGuard = config.atLeastOnce()
                ? PauseGuard.start(Duration.ofMillis(Math.max(2 * PauseGuard.TICK_MS, config.sessionTimeoutMs())))
                : PauseGuard.NONE;
        supplier.withPauseGuard(pauseGuard);
        Topology topology = BatonTopology.build(supplier, serdes.workerStatus());
        Properties props = config.streamsProperties();
        // A record whose processing throws is dead-lettered (its caller answered) instead of stopping the thread.
        props.putIfAbsent(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingHandler.class);
        this.streams = config.commitPacing() == CommitPacing.DRAINED
                ? new KafkaStreams(topology, props, new DrainSignallingClientSupplier())
                : new KafkaStreams(topology, props);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING && before != KafkaStreams.State.RUNNING) {
                agreementChecks.execute(this::checkAgreementAgain);
            }
            synchronized (stateChanged) {
                stateChanged.notifyAll();
            }
        });
        this.meters = meters;
        this.streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(meters);
        this.queries = StatusEndpoints.queries(streams, serdes.siteState(), serdes.workerStatus(), config.adminConfig(),
                queueService::unservedQueues, config.applicationServer().orElse(null));
        streams.setUncaughtExceptionHandler(e -> {
            log.error("stream thread failed; replacing it (its tasks resume from the last commit)", e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    }

    /** Queues this instance has seen without a live worker. */
    public Set<String> unservedQueues() {
        return queueService.unservedQueues();
    }

    public BatonStreamsApp start() {
        requireInputTopics(partitionsAdmin);
        InstanceAgreement.require(config.clientConfig(), config.applicationId(), config.processingGuarantee(), config.tokenKey(),
                config.tokenKeyRotate());
        ChangelogLimits.raise(partitionsAdmin, config.applicationId(), List.of(TopologyNames.SITES_STORE));
        streams.start();
        agreementChecks.scheduleWithFixedDelay(this::checkAgreementAgain, AGREEMENT_CHECK_EVERY.toMillis(), AGREEMENT_CHECK_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        if (config.hangingTransactionCheckMs() > 0) {
            Admin admin = Admin.create(config.adminConfig());
            reaper = new HangingTransactionReaper(admin, hangingTransactionFinder(admin),
                    id -> id.startsWith(ClientIds.WORKER_TRANSACTIONAL_PREFIX)).start(Duration.ofMillis(config.hangingTransactionCheckMs()));
        }
        if (config.transactionFenceAfterMs() > 0) {
            fencer = new AbandonedTransactionFencer(Admin.create(config.adminConfig()), config.clientConfig(), config.applicationId(),
                    Duration.ofMillis(config.transactionFenceAfterMs())).start(FENCE_CHECK_INTERVAL);
        }
        if (config.statusPort() > 0) {
            status = new StatusServer(config.statusPort(), queries, this::isRunning);
        }
        registryRest = serveRegistry();
        lag = new QueueLagMeter(Admin.create(config.adminConfig()), meters).start(Duration.ofMillis(config.queueRefreshMs()));
        return this;
    }

    /** The topics the topology reads: without one Kafka Streams' global thread dies and the app ends in ERROR, saying nothing of why. */
    static final List<String> INPUT_TOPICS = List.of(BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, BatonTopics.WORKERS);
    /** How long a missing input topic is asked for again: one created a moment ago may be unknown to the broker still. */
    private static final Duration MISSING_TOPIC_PATIENCE = Duration.ofSeconds(10);

    /**
     * The topics it reads exist, and DESIGN section 3's {@code baton.dispatch} and {@code baton.worker-events} are
     * co-partitioned, so one task owns every event of a site. Kafka Streams checks co-partitioning only for joins: with
     * two partition counts it would start, make as many tasks as the larger topic has partitions, and every worker report
     * whose key hashes to another partition of its topic would be dead-lettered as on the wrong partition, its site
     * waiting forever. Both are refused here, by name. A cluster that cannot be asked (ACLs, a timeout) is warned about and
     * not checked.
     *
     * @throws IllegalStateException when an input topic is missing, or both topics exist with different partition counts
     */
    static void requireInputTopics(Admin admin) {
        Map<String, TopicDescription> topics = null;
        long deadline = System.nanoTime() + MISSING_TOPIC_PATIENCE.toNanos();
        while (topics == null) {
            try {
                topics = admin.describeTopics(INPUT_TOPICS).allTopicNames().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    warnUnchecked(e);
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Baton's topics are missing: " + missing(admin) + " not found. Create them first"
                            + " with `baton topics create` against the same cluster; the streams app will not start without them",
                            e.getCause());
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + INPUT_TOPICS, interrupted);
                }
            } catch (TimeoutException e) {
                warnUnchecked(e);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while checking " + INPUT_TOPICS, e);
            }
        }
        int dispatch = topics.get(BatonTopics.DISPATCH).partitions().size();
        int events = topics.get(BatonTopics.WORKER_EVENTS).partitions().size();
        if (dispatch != events) {
            throw new IllegalStateException(BatonTopics.DISPATCH + " has " + dispatch + " partitions and " + BatonTopics.WORKER_EVENTS
                    + " has " + events + ": they must be co-partitioned (the same partition count), so that one stream task owns every"
                    + " event of a site. Recreate one of them with the other's count (`baton topics create --partitions N` reports"
                    + " the mismatch); the streams app will not start on them");
        }
    }

    /** Which of the input topics the cluster lacks, or all of them when it will not say. */
    private static List<String> missing(Admin admin) {
        try {
            Set<String> present = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            return INPUT_TOPICS.stream().filter(t -> !present.contains(t)).toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return INPUT_TOPICS;
        } catch (ExecutionException | TimeoutException e) {
            return INPUT_TOPICS;
        }
    }

    private static void warnUnchecked(Exception e) {
        log.warn("cannot check that {} exist and that {} and {} are co-partitioned ({}); starting unchecked", INPUT_TOPICS,
                BatonTopics.DISPATCH, BatonTopics.WORKER_EVENTS, e.toString());
    }

    /**
     * The Confluent REST API over the schema topic, for clients in other languages. Only over
     * {@code kafka://}: an http(s) registry serves its own. A taken port is not fatal, because every
     * instance folds the same topic: another one on this host serves the same ids.
     */
    private SchemaRegistryRestServer serveRegistry() {
        int port = config.schemaRegistryRestPort();
        if (port == 0) {
            return null;
        }
        if (!config.schemaRegistryUrl().trim().toLowerCase().startsWith("kafka://")) {
            log.warn("{}={} ignored: the registry is {}, which serves its own REST API", StreamsAppConfig.SCHEMA_REGISTRY_REST_PORT_CONFIG,
                    port, config.schemaRegistryUrl());
            return null;
        }
        try {
            return SchemaRegistryRestServer.start(registry, port);
        } catch (IOException e) {
            log.warn("schema registry REST API not served: port {} cannot be bound ({}); set {} to a free port",
                    port, e.toString(), StreamsAppConfig.SCHEMA_REGISTRY_REST_PORT_CONFIG);
            return null;
        }
    }

    /** The port serving the schema registry REST API, or -1 when it is not served. */
    public int schemaRegistryRestPort() {
        return registryRest == null ? -1 : registryRest.port();
    }

    /**
     * The query API ({@code /status}, {@code /sites}, {@code /sites/<key>}), answered for every
     * instance of the app through each one's {@code application.server}; served on status.port, or
     * mounted by {@code baton streams-app} on its process port.
     */
    public HttpHandler queries() {
        return queries;
    }

    /**
     * Watches the topics this app and its workers read committed (Baton's, this app's changelogs, and
     * {@code __consumer_offsets} for the worker groups' pending offsets); aborts only the
     * transactions of this app and of workers.
     */
    private HangingTransactionFinder hangingTransactionFinder(Admin admin) {
        String ownPrefix = config.applicationId() + "-";
        return new HangingTransactionFinder(admin,
                topic -> topic.startsWith("baton.") || topic.startsWith(ownPrefix) || topic.equals(Topic.GROUP_METADATA_TOPIC_NAME),
                id -> id.startsWith(ownPrefix) || id.startsWith(ClientIds.WORKER_TRANSACTIONAL_PREFIX),
                config.hangingTransactionMinAgeMs(), Clock.systemUTC());
    }

    /** The port serving the query API, /health and /ready, or -1 when status.port is 0. */
    public int statusPort() {
        return status == null ? -1 : status.port();
    }

    /**
     * An instance started at the same moment as one with another guarantee or key can pass the check at start (neither
     * had joined the group); once running, the one whose value is no longer in force stops (h/adv24a).
     */
    private void checkAgreementAgain() {
        if (refusal != null || !isRunning()) {
            return;
        }
        try {
            InstanceAgreement.verify(config.clientConfig(), config.applicationId(), config.processingGuarantee(), config.tokenKey());
        } catch (InstanceAgreement.Disagreement e) {
            refusal = e;
            log.error("stopping this instance: {}", e.getMessage());
            streams.close(CloseOptions.timeout(Duration.ofSeconds(30)).withGroupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
            synchronized (stateChanged) {
                stateChanged.notifyAll();
            }
        } catch (RuntimeException e) {
            if (agreementChecks.isShutdown()) {
                return; // this instance is closing and interrupted the check: nothing to warn about
            }
            log.warn("could not check the instance agreement again (it is checked at the next rebalance): {}", e.toString());
        }
    }

    /** Why this instance stopped itself after starting, if it did: another instance's guarantee or key is in force. */
    public Optional<IllegalStateException> refusal() {
        return Optional.ofNullable(refusal);
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    public boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    /**
     * Waits until every stream thread has its tasks and processes: the state is RUNNING.
     *
     * @throws IllegalStateException if it is not RUNNING within {@code timeout} (the message names the state)
     */
    public void awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateChanged) {
            while (!isRunning()) {
                if (refusal != null) {
                    throw new IllegalStateException(refusal.getMessage(), refusal);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !streams.state().isRunningOrRebalancing() && streams.state() != KafkaStreams.State.CREATED) {
                    throw new IllegalStateException("streams app not RUNNING within " + timeout + " (state " + streams.state() + ")");
                }
                stateChanged.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    public KafkaStreams streams() {
        return streams;
    }

    @Override
    public void close() {
        agreementChecks.shutdownNow();
        if (status != null) {
            status.close();
        }
        if (registryRest != null) {
            registryRest.close();
        }
        if (reaper != null) {
            reaper.close();
        }
        if (fencer != null) {
            fencer.close();
        }
        if (lag != null) {
            lag.close();
        }
        streamsMetrics.close();
        // Leave the group: Streams by default stays in it, so its tasks (and every site on them)
        // would wait out the session timeout before another instance, or this one restarted, took over.
        streams.close(CloseOptions.timeout(Duration.ofSeconds(30)).withGroupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
        pauseGuard.close(); // after the stream threads: a stopped ticker reads as a pause
        queues.close();
        taskSubjects.close();
        partitionsAdmin.close(Duration.ofSeconds(5));
        registry.close();
    }
}
