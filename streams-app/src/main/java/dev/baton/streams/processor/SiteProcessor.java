package dev.baton.streams.processor;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.streams.state.DeadlineIndex;
import dev.baton.streams.state.SiteStore;
import dev.baton.streams.topology.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The site state machine. Reads {@code baton.dispatch} and {@code baton.worker-events} (co-partitioned,
 * so this task sees every event of its sites, in order), decides, and writes the stores and outputs
 * in the task's transaction. Bad records go to {@code baton.dlq}; nothing thrown here kills the thread.
 */
public final class SiteProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private static final Logger log = LoggerFactory.getLogger(SiteProcessor.class);
    private static final int MAX_DUE_PER_PUNCTUATION = 10_000;

    private final SiteProcessorSupplier.Settings settings;
    private final CensusChanges censusChanges;
    private ProcessorContext<byte[], byte[]> context;
    private Emitter emit;
    private InputValidator validator;
    private DispatchRules dispatchRules;
    private WorkerEventRules workerEventRules;
    private DeadlineRules deadlineRules;
    private DeadlineIndex deadlines;
    /** How far behind its writer the last worker event this task read was (wall clock at read minus record time). */
    private long workerEventLagMillis;

    SiteProcessor(SiteProcessorSupplier.Settings settings, CensusChanges censusChanges) {
        this.settings = settings;
        this.censusChanges = censusChanges;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        Serdes serdes = settings.serdes();
        KeyValueStore<Bytes, byte[]> sitesStore = context.getStateStore(TopologyNames.SITES_STORE);
        SiteStore sites = new SiteStore(sitesStore, serdes.siteState());
        deadlines = new DeadlineIndex(context.getStateStore(TopologyNames.DEADLINES_STORE));
        deadlines.rebuild(sites);
        emit = new Emitter(context, serdes, new DeadLetters(serdes.deadLetter(), "streams-app " + context.taskId(), Clock.systemUTC()),
                settings.pacedCommitMs() > 0);
        WorkerCensus census = new StoreWorkerCensus(context.getStateStore(TopologyNames.WORKERS_STORE), serdes.workerStatus(),
                context::currentSystemTimeMs, settings.workerStaleMs(), censusChanges);
        SiteLifecycle lifecycle = new SiteLifecycle(sites, deadlines, emit, settings.metrics(), settings.heartbeatWindowMs(),
                settings.dedupeWindowMs(), new RetryPolicies(settings.defaultRetryPolicy()), census, settings.queueService(),
                settings.queueTimeouts());
        validator = new InputValidator(settings.maxPayloadBytes());
        dispatchRules = new DispatchRules(sites, lifecycle, emit, settings.queues());
        workerEventRules = new WorkerEventRules(sites, lifecycle, emit, settings.metrics());
        deadlineRules = new DeadlineRules(sites, deadlines, lifecycle, settings.metrics(), census,
                settings.transportLossBudget());
        context.schedule(Duration.ofMillis(settings.timerResolutionMs()), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
        if (settings.pacedCommitMs() > 0) {
            // The paced commit's fallback: checked on every loop of the thread (the punctuator is due each millisecond).
            context.schedule(Duration.ofMillis(1), PunctuationType.WALL_CLOCK_TIME, now -> {
                if (CommitPacer.current().fallbackDue(now, settings.pacedCommitMs())) {
                    context.commit();
                }
            });
        }
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        Optional<RecordMetadata> meta = context.recordMetadata();
        String topic = meta.map(RecordMetadata::topic).orElse("");
        SiteKey site;
        try {
            site = SiteKey.fromBytes(record.key() == null ? new byte[0] : record.key());
        } catch (IllegalArgumentException e) {
            deadLetter(record, "bad site key: " + e.getMessage());
            return;
        }
        try {
            if (BatonTopics.DISPATCH.equals(topic)) {
                dispatch(site, record);
            } else {
                workerEventLagMillis = Math.max(0, context.currentSystemTimeMs() - record.timestamp());
                workerEvent(site, record);
            }
        } catch (UndecodableRecordException e) {
            deadLetter(record, e.getMessage());
        }
    }

    private void dispatch(SiteKey site, Record<byte[], byte[]> record) {
        DispatchCommand cmd = settings.serdes().dispatch().decode(BatonTopics.DISPATCH, record.value());
        Optional<String> problem = validator.problemWith(cmd);
        if (problem.isPresent()) {
            deadLetter(record, "invalid DispatchCommand: " + problem.get());
            refuseInvalid(site, cmd, problem.get());
            return;
        }
        if (cmd.getKind() == DispatchKind.CANCEL) {
            dispatchRules.cancel(site, cmd);
        } else {
            dispatchRules.requested(site, cmd);
        }
    }

    private void workerEvent(SiteKey site, Record<byte[], byte[]> record) {
        WorkerEvent event = settings.serdes().workerEvent().decode(BatonTopics.WORKER_EVENTS, record.value());
        Optional<String> problem = validator.problemWith(event);
        if (problem.isPresent()) {
            deadLetter(record, "invalid WorkerEvent: " + problem.get());
            return;
        }
        workerEventRules.on(site, event);
    }

    /** An invalid dispatch still answers its caller, if it named one, so no future waits forever. */
    private void refuseInvalid(SiteKey site, DispatchCommand cmd, String problem) {
        if (cmd.getReplyKey().isEmpty() || cmd.getKind() == DispatchKind.CANCEL) {
            return;
        }
        emit.outcome(cmd.getReplyKey(), DispatchAnswers.failed(site.toRef(), cmd, Reasons.TERMINAL + " invalid dispatch: " + problem,
                emit.now()));
    }

    private void punctuate(long now) {
        List<DeadlineIndex.Due> due = deadlines.due(timerHorizon(now), MAX_DUE_PER_PUNCTUATION);
        for (DeadlineIndex.Due d : due) {
            try {
                deadlineRules.fire(d);
            } catch (UndecodableRecordException e) {
                log.error("site {}: stored state cannot be decoded; deadline {} dropped: {}", d.site(), d.kind(), e.getMessage());
                deadlines.remove(d);
            }
        }
    }

    /**
     * How far the timers may run. A deadline means "no worker report arrived in time", which only the
     * worker-events input can tell: while the task is behind on it (after a restart, a failover or in
     * a burst), the heartbeat or completion that answers a deadline may still be unread. So timers
     * run behind the wall clock by the lag of the last worker event read. Only worker events count:
     * the dispatch input of the same task can be fresh while worker events lag. Once caught up the
     * lag is the pipeline's few milliseconds; if worker events stop while behind, timers stay late
     * by that last lag. A worker clock behind ours delays timers by the skew; nothing fires early.
     */
    private long timerHorizon(long now) {
        return now - workerEventLagMillis;
    }

    private void deadLetter(Record<byte[], byte[]> record, String reason) {
        settings.metrics().deadLettered();
        RecordMetadata meta = context.recordMetadata().orElse(null);
        log.warn("dead-lettering record of {}-{}@{}: {}", meta == null ? "?" : meta.topic(), meta == null ? -1 : meta.partition(),
                meta == null ? -1 : meta.offset(), reason);
        emit.deadLetter(meta == null ? "" : meta.topic(), meta == null ? -1 : meta.partition(), meta == null ? -1 : meta.offset(),
                record.key(), record.value(), reason);
    }
}
