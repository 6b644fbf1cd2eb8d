package dev.baton.streams.processor;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Failure;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.schemas.registry.IncompatibleSchemaException;
import dev.baton.schemas.registry.InvalidSchemaException;
import dev.baton.schemas.registry.SchemaRegistryException;
import dev.baton.streams.state.DeadlineIndex;
import dev.baton.streams.state.SiteStore;
import dev.baton.streams.state.StepInput;
import dev.baton.streams.names.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.errors.TaskMigratedException;
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
 * in the task's transaction.
 *
 * <p>Each input record, and each deadline that fires, is one step: the rules stage their store
 * writes and outputs, and the step is committed whole or, when deciding throws, dropped whole. A
 * record that cannot be decoded, or whose decision throws, goes to {@code baton.dlq} with the reason
 * (a dispatch's caller is answered too); nothing thrown here kills the thread.
 */
public final class SiteProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private static final Logger log = LoggerFactory.getLogger(SiteProcessor.class);
    private static final int MAX_DUE_PER_PUNCTUATION = 10_000;
    private static final long FAILED_DEADLINE_LOG_INTERVAL_MS = 10_000;

    private final SiteProcessorSupplier.Settings settings;
    private final CensusChanges censusChanges;
    private ProcessorContext<byte[], byte[]> context;
    private SiteStore sites;
    private DeadlineIndex deadlines;
    private Emitter emit;
    private InputValidator validator;
    private PartitionCheck partitionCheck;
    private DispatchRules dispatchRules;
    private WorkerEventRules workerEventRules;
    private DeadlineRules deadlineRules;
    private SiteLifecycle lifecycle;
    private DeadlineRecords deadlineRecords;
    private final ReportClock reportClock = new ReportClock();
    private Record<byte[], byte[]> current;
    private long failedDeadlineLoggedAtMillis = Long.MIN_VALUE;

    private final PauseGuard pauseGuard;
    /** When this processor last knew it was not coming out of a long pause ({@link PauseGuard}). */
    private long unpausedSinceNanos;

    SiteProcessor(SiteProcessorSupplier.Settings settings, CensusChanges censusChanges) {
        this(settings, censusChanges, PauseGuard.NONE);
    }

    SiteProcessor(SiteProcessorSupplier.Settings settings, CensusChanges censusChanges, PauseGuard pauseGuard) {
        this.settings = settings;
        this.censusChanges = censusChanges;
        this.pauseGuard = pauseGuard;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.unpausedSinceNanos = System.nanoTime();
        EventSerdes serdes = settings.serdes();
        KeyValueStore<Bytes, byte[]> sitesStore = context.getStateStore(TopologyNames.SITES_STORE);
        sites = new SiteStore(sitesStore, serdes.siteState());
        deadlines = new DeadlineIndex(context.getStateStore(TopologyNames.DEADLINES_STORE));
        deadlines.rebuild(sites);
        emit = new Emitter(context, serdes, new DeadLetters(serdes.deadLetter(), "streams-app " + context.taskId(), Clock.systemUTC()));
        WorkerCensus census = new StoreWorkerCensus(context.getStateStore(TopologyNames.WORKERS_STORE), serdes.workerStatus(),
                context::currentSystemTimeMs, settings.workerStaleMs(), censusChanges);
        lifecycle = new SiteLifecycle(sites, deadlines, emit, settings.metrics(), settings.heartbeatWindowMs(),
                settings.dedupeWindowMs(), new RetryPolicies(settings.defaultRetryPolicy()), census, settings.queueService(),
                settings.queueTimeouts(), settings.tokenKey(), settings.atLeastOnce());
        deadlineRecords = new DeadlineRecords();
        validator = new InputValidator(settings.maxPayloadBytes());
        partitionCheck = new PartitionCheck(settings.inputPartitions());
        dispatchRules = new DispatchRules(lifecycle, emit, settings.queues(), settings.atLeastOnce());
        workerEventRules = new WorkerEventRules(sites, lifecycle, emit, settings.metrics(), reason -> deadLetter(current, reason));
        deadlineRules = new DeadlineRules(sites, deadlines, lifecycle, settings.metrics(), census, settings.transportLossBudget());
        context.schedule(Duration.ofMillis(settings.timerResolutionMs()), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
        if (InputDrain.current().watched()) {
            // Drained commits: a drain that came within the minimum gap of the last commit is committed
            // once the gap has passed (the punctuator is due each millisecond, checked on every loop).
            context.schedule(Duration.ofMillis(1), PunctuationType.WALL_CLOCK_TIME, now -> {
                if (InputDrain.current().commitDue(now)) {
                    context.commit();
                }
            });
        }
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        commitIfDrainedAfter(InputDrain.current());
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
        if (BatonTopics.WORKER_EVENTS.equals(topic) && record.headers().lastHeader(TopologyNames.DEADLINE_HEADER) != null) {
            deadlineRecordRead(record.headers());
            return;
        }
        Header tick = record.headers().lastHeader(TopologyNames.CLOCK_HEADER);
        if (tick != null && BatonTopics.WORKER_EVENTS.equals(topic) && tick.value() != null && tick.value().length == Long.BYTES) {
            // A tick from the future (forged, or another instance's clock ahead of ours) vouches for no more than now.
            long now = context.currentSystemTimeMs();
            reportClock.tickRead(Math.min(ByteBuffer.wrap(tick.value()).getLong(), now));
            fireDue(now);
            return;
        }
        current = record;
        try {
            sites.beginStep(stepInput(topic, BatonTopics.DISPATCH.equals(topic) ? record.timestamp() : -1L));
            decide(topic, record);
            commitStep();
        } catch (TaskMigratedException | TaskCorruptedException e) {
            throw e; // Kafka Streams' own: the task is closed and this record read again, so it is no processing failure (h/adv26)
        } catch (UndecodableRecordException e) {
            abortStep();
            deadLetter(record, e.getMessage());
            commitStep();
        } catch (RuntimeException e) {
            abortStep();
            log.error("task {}: deciding {} failed; nothing of it was written, the record is dead-lettered", context.taskId(),
                    position(), e);
            deadLetter(record, "processing failed in " + TopologyNames.SITE_PROCESSOR + ": " + e);
            answerAfterFailure(topic, record, e);
            commitStep();
        } finally {
            current = null;
        }
    }

    private void decide(String topic, Record<byte[], byte[]> record) {
        byte[] key = record.key() == null ? new byte[0] : record.key();
        SiteKey site;
        try {
            site = SiteKey.fromBytes(key);
        } catch (IllegalArgumentException e) {
            badSiteKey(topic, record, e.getMessage());
            return;
        }
        Optional<String> keyProblem = validator.problemWith(site, key);
        if (keyProblem.isPresent()) {
            badSiteKey(topic, record, keyProblem.get());
            return;
        }
        int partition = context.recordMetadata().map(RecordMetadata::partition).orElse(-1);
        Optional<String> misplaced = partition < 0 ? Optional.empty() : partitionCheck.misplacement(topic, record.key(), partition);
        if (misplaced.isPresent()) {
            wrongPartition(site, topic, record, misplaced.get());
        } else if (BatonTopics.DISPATCH.equals(topic)) {
            dispatch(site, record);
        } else {
            workerEvent(site, record);
        }
    }

    /**
     * A record on another partition than its key's: this task does not own its site (a client used
     * another partitioner than Kafka's default murmur2). Acting on it would make a second row for the
     * site on the wrong task, whose worker reports then land where the site is unknown. A dispatch is
     * answered, naming the rule; anything else is dead-lettered.
     */
    private void wrongPartition(SiteKey site, String topic, Record<byte[], byte[]> record, String problem) {
        deadLetter(record, problem);
        if (BatonTopics.DISPATCH.equals(topic)) {
            DispatchCommand cmd = settings.serdes().dispatch().decode(BatonTopics.DISPATCH, record.value());
            if (cmd.getKind() == DispatchKind.REQUESTED) {
                refuseInvalid(site, cmd, problem);
            }
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
        Optional<SiteState> row = sites.get(site);
        // max.payload.bytes may have been lowered since the site accepted this request (read again after an
        // at-least-once crash, or sent again): a request the site knows is decided by its rules, never refused for its size.
        Optional<String> tooLarge = validator.inputSizeProblem(cmd);
        if (tooLarge.isPresent() && (row.isEmpty() || !DispatchRules.knows(row.get(), cmd.getRequestId()))) {
            deadLetter(record, "invalid DispatchCommand: " + tooLarge.get());
            if (refuseInvalid(site, cmd, tooLarge.get())) {
                dispatchRules.remember(site, row, cmd, invalidReason(tooLarge.get())); // the limit is a setting: see remember
            }
            return;
        }
        boolean replay = alreadyApplied(row);
        if (cmd.getKind() == DispatchKind.CANCEL) {
            if (!replay) {
                // A cancel already applied is not decided again: the state ahead of it may hold a run
                // started after it, which it never cancelled.
                dispatchRules.cancel(site, cmd, row);
            }
        } else {
            dispatchRules.requested(site, cmd, row);
        }
        if (replay) {
            reassert(site);
        }
    }

    private void workerEvent(SiteKey site, Record<byte[], byte[]> record) {
        WorkerEvent event = outputTooLargeAsFailure(record, settings.serdes().workerEvent().decode(BatonTopics.WORKER_EVENTS, record.value()));
        Optional<String> problem = validator.problemWith(event);
        if (problem.isPresent()) {
            deadLetter(record, "invalid WorkerEvent: " + problem.get());
            return;
        }
        Optional<SiteState> row = sites.get(site);
        if (!alreadyApplied(row)) {
            workerEventRules.on(site, event, row);
            return;
        }
        // The row holds this report already. The report that ended its generation is not decided
        // again (it would now look late: relayed, or refused with a stop); the rest are, as a late
        // or repeated report is. Then the row's outputs go out again, in case the crash lost them.
        String resolvedToken = row.get().getResolvedToken();
        if (resolvedToken == null || !new CompletionToken(resolvedToken).matches(event.getToken())) {
            workerEventRules.on(site, event, row);
        }
        reassert(site);
    }

    /**
     * A completion whose output is over {@code max.payload.bytes} becomes the terminal {@code OutputTooLarge} failure its
     * worker would have reported had it known this limit ({@code EventSender}); the report itself, output and all, is
     * dead-lettered for the operator. A worker checks its own {@code max.payload.bytes}, and the streams app's may be lower
     * (lowered on a restart while activities ran, or set apart): dead-lettered only, the completion left the lease held, the
     * heartbeat deadline took the finished run for a transport loss, the handler ran again every window, and its caller got
     * {@code transport-exhausted:} instead of the reason (h/adv22s). The token still decides: a report whose token is not
     * current is refused as any other.
     */
    private WorkerEvent outputTooLargeAsFailure(Record<byte[], byte[]> record, WorkerEvent event) {
        if (event.getKind() != WorkerEventKind.COMPLETED || event.getOutput() == null) {
            return event;
        }
        Optional<String> tooLarge = validator.outputProblem(event.getOutput().getData().remaining());
        if (tooLarge.isEmpty()) {
            return event;
        }
        WorkerEvent failure = WorkerEvent.newBuilder(event).setKind(WorkerEventKind.FAILED).setOutput(null)
                .setReason(Reasons.TERMINAL + " OutputTooLarge: " + tooLarge.get())
                .setFailure(Failure.newBuilder().setType("OutputTooLarge").setMessage(tooLarge.get()).build()).build();
        if (validator.problemWith(failure).isPresent()) {
            return event; // invalid apart from its size too: dead-lettered once, as any invalid report
        }
        deadLetter(record, "invalid WorkerEvent: " + tooLarge.get() + " (decided as a terminal OutputTooLarge failure: the worker's "
                + "max.payload.bytes is above the streams app's)");
        return failure;
    }

    /**
     * Whether the site's row already holds this step's record (at-least-once reprocessing; never under exactly-once).
     * The row is read once per input record and handed to the rules: each read decodes the whole row.
     */
    private boolean alreadyApplied(Optional<SiteState> row) {
        return row.map(sites::alreadyApplied).orElse(false);
    }

    private boolean alreadyApplied(SiteKey site) {
        return alreadyApplied(sites.get(site));
    }

    private void reassert(SiteKey site) {
        settings.metrics().reprocessed();
        sites.get(site).ifPresent(row -> lifecycle.reassert(site, row));
    }

    private StepInput stepInput(String topic, long timeMs) {
        RecordMetadata meta = context.recordMetadata().orElse(null);
        if (meta == null) {
            return StepInput.NONE;
        }
        StepInput.Source source = BatonTopics.DISPATCH.equals(topic) ? StepInput.Source.DISPATCH : StepInput.Source.WORKER_EVENTS;
        return new StepInput(source, meta.partition(), meta.offset(), timeMs);
    }

    /**
     * A deadline record read back: every report written before it has been read, so the deadline
     * fires now if the row still has it armed. Read again after a restart whose state already holds
     * its firing, it re-emits the row's outputs instead. Anyone who may write worker events can
     * write one; it fires nothing that is not due by this task's own clock (a forged census changes only
     * which cause an expiry that was due names).
     */
    private void deadlineRecordRead(Headers headers) {
        Optional<DeadlineIndex.Due> parsed = DeadlineRecords.parse(headers.lastHeader(TopologyNames.DEADLINE_HEADER).value());
        long now = context.currentSystemTimeMs();
        if (parsed.isEmpty() || parsed.get().atMillis() > now) {
            return;
        }
        DeadlineIndex.Due due = parsed.get();
        deadlineRecords.read(due);
        reportClock.tickRead(due.atMillis());
        try {
            sites.beginStep(stepInput(BatonTopics.WORKER_EVENTS, due.atMillis()));
            if (alreadyApplied(due.site())) {
                reassert(due.site());
            } else {
                deadlineRules.fire(due, DeadlineRecords.request(headers));
            }
            commitStep();
        } catch (TaskMigratedException e) {
            throw e;
        } catch (RuntimeException e) {
            abortStep();
            logFailedDeadline(now, due, e);
        }
    }

    /**
     * A record whose key is no site's: dead-lettered, touching no site. A dispatch's caller is still answered, under the
     * site its command names (cut to the ids' bound): the key it sent is not one an outcome or history event may carry.
     */
    private void badSiteKey(String topic, Record<byte[], byte[]> record, String problem) {
        deadLetter(record, "bad site key: " + problem);
        if (!BatonTopics.DISPATCH.equals(topic) || record.value() == null) {
            return;
        }
        DispatchCommand cmd;
        try {
            cmd = settings.serdes().dispatch().decode(BatonTopics.DISPATCH, record.value());
        } catch (RuntimeException undecodable) {
            return; // no caller to answer: the dead letter names the key, which is why it is there
        }
        refuseInvalid(boundedSite(cmd.getSite()), cmd, "bad site key: " + problem);
    }

    /** The site a command's value names, each part cut to the ids' bound: for answers to a record whose key is no site's. */
    private static SiteKey boundedSite(SiteRef named) {
        return new SiteKey(bounded(named.getNamespace()), bounded(named.getWorkflowId()), bounded(named.getActivityId()));
    }

    private static String bounded(String part) {
        String p = part == null || part.isEmpty() ? "-" : part;
        return p.length() <= InputValidator.MAX_ID_CHARS ? p : p.substring(0, InputValidator.MAX_ID_CHARS);
    }

    /**
     * An invalid dispatch still answers its caller, if it named one, so no future waits forever. One whose reply key or
     * request id is over the ids' bound cannot be answered (the answer would carry them): it is only dead-lettered.
     */
    /** Answers an invalid request's caller, when it names one; whether it did (a cancel is not answered). */
    private boolean refuseInvalid(SiteKey site, DispatchCommand cmd, String problem) {
        if (!InputValidator.answerable(cmd) || cmd.getKind() == DispatchKind.CANCEL) {
            return false;
        }
        String reason = invalidReason(problem);
        emit.outcome(cmd.getReplyKey(), DispatchAnswers.failed(site.toRef(), cmd, reason, emit.now()));
        emit.history(site, DispatchAnswers.history(site.toRef(), cmd, HistoryKind.INVALID_DISPATCH, reason, emit.now()));
        return true;
    }

    private static String invalidReason(String problem) {
        return Reasons.TERMINAL + " invalid dispatch: " + problem;
    }

    /**
     * A dispatch whose decision threw is answered, so its caller does not wait forever. A worker
     * report gets no answer: its site is untouched, and a lease that hears nothing more is found by
     * its heartbeat deadline.
     */
    private void answerAfterFailure(String topic, Record<byte[], byte[]> record, RuntimeException e) {
        if (!BatonTopics.DISPATCH.equals(topic)) {
            return;
        }
        try {
            DispatchCommand cmd = settings.serdes().dispatch().decode(BatonTopics.DISPATCH, record.value());
            if (cmd.getKind() == DispatchKind.REQUESTED && InputValidator.answerable(cmd)) {
                SiteKey site = boundedSite(cmd.getSite());
                Optional<SchemaRegistryException> refused = registryRefusal(e);
                Outcome answer = refused.isPresent() ? DispatchAnswers.schemaRefused(site.toRef(), cmd, refused.get(), emit.now())
                        : DispatchAnswers.internalError(site.toRef(), cmd, position(), e, emit.now());
                emit.outcome(cmd.getReplyKey(), answer);
                emit.history(site, DispatchAnswers.history(site.toRef(), cmd, HistoryKind.INTERNAL_ERROR, answer.getReason(), emit.now()));
            }
        } catch (RuntimeException undecodable) {
            log.warn("task {}: the failed dispatch {} cannot be answered: {}", context.taskId(), position(), undecodable.toString());
        }
    }

    /**
     * The registry's refusal of a schema this step needed (incompatible with, or not, what its subject
     * holds), if that is why the step failed: sending the dispatch again fails the same way, so its
     * caller is answered {@code terminal:}. An unreachable registry is no refusal.
     */
    private static Optional<SchemaRegistryException> registryRefusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IncompatibleSchemaException || t instanceof InvalidSchemaException) {
                return Optional.of((SchemaRegistryException) t);
            }
        }
        return Optional.empty();
    }

    /**
     * Fires the deadlines that have passed, then, if a deadline that waits for worker reports has
     * passed the wall clock but not the reports read, sends a clock tick to find out (see
     * {@link ReportClock}).
     */
    private void punctuate(long now) {
        if (settings.atLeastOnce()) {
            requestDue(now);
            return;
        }
        fireDue(now);
        if (deadlines.awaitsReports(now, reportClock.readMillis()) && reportClock.shouldTick(now)) {
            emit.clockTick(context.taskId().partition(), now);
            reportClock.tickSent(now);
            commitStep();
        }
        if (InputDrain.current().commitDue(now)) {
            context.commit(); // what fired is all there is to commit: the input is drained
        }
    }

    /**
     * Counts the record about to be processed; when it is the last one of a drained input (the
     * {@code drained} commit pacing), asks for the commit that Kafka Streams makes right after it.
     */
    private void commitIfDrainedAfter(InputDrain drain) {
        drain.processed();
        if (drain.commitDue(context.currentSystemTimeMs())) {
            context.commit();
        }
    }

    private void fireDue(long now) {
        List<DeadlineIndex.Due> due = deadlines.due(now, Math.min(now, reportClock.readMillis()), MAX_DUE_PER_PUNCTUATION);
        for (DeadlineIndex.Due d : due) {
            fireOne(now, d);
        }
    }

    private void fireOne(long now, DeadlineIndex.Due d) {
        try {
            deadlineRules.fire(d);
            commitStep();
        } catch (TaskMigratedException | TaskCorruptedException e) {
            throw e; // Kafka Streams' own: the task is closed and its deadlines rebuilt from the rows, so this one fires again
        } catch (UndecodableRecordException e) {
            abortStep();
            log.error("site {}: stored state cannot be decoded; deadline {} dropped: {}", d.site(), d.kind(), e.getMessage());
            deadlines.remove(d);
            commitStep();
        } catch (RuntimeException e) {
            // Left in the index: it is tried again at the next punctuation (an encoding that
            // failed because the registry was unreachable, say, may succeed then).
            abortStep();
            logFailedDeadline(now, d, e);
        }
    }

    /**
     * At-least-once: a due deadline fires when its deadline record comes back through this task's
     * input, not here. A firing then has an input offset like any other step, so after a crash that
     * kept its state write but lost its outputs, reading the record again re-emits them; and reading
     * it back proves every report written before it was read (it doubles as a clock tick). Expiry
     * too, though it only deletes a resolved row: fired here, a crash could lose the delete while
     * the requests decided after it on "no row" (a new run) are read again, and decided on the old
     * row restored (refused, or answered its outcome): a second, different answer. Through the log
     * it is read again in its place among them.
     */
    private void requestDue(long now) {
        for (DeadlineIndex.Due d : deadlines.due(now, now, MAX_DUE_PER_PUNCTUATION)) {
            if (deadlineRecords.shouldRequest(d, now)) {
                emit.deadlineRecord(context.taskId().partition(), DeadlineRecords.header(d), deadlineRules.requestFor(d));
                deadlineRecords.requested(d, now);
            }
        }
        commitStep();
    }

    private void logFailedDeadline(long now, DeadlineIndex.Due d, RuntimeException e) {
        if (now - failedDeadlineLoggedAtMillis >= FAILED_DEADLINE_LOG_INTERVAL_MS) {
            failedDeadlineLoggedAtMillis = now;
            log.error("task {}: deadline {} of site {} failed and will be tried again (logged at most every {} ms)", context.taskId(),
                    d.kind(), d.site(), FAILED_DEADLINE_LOG_INTERVAL_MS, e);
        }
    }

    private void commitStep() {
        refuseAfterPause();
        sites.commitStep();
        deadlines.commitStep();
        emit.commitStep();
    }

    /**
     * At-least-once has no fencing: a JVM paused past its group session (kill -STOP, a frozen VM) goes on, thawed, with
     * the records it had fetched, though another instance may own the task by now, and its row writes would set the
     * sites changelog back behind the new owner's (a later restore then brings back a resolved site as live). A step
     * decided after such a pause is not written: the task is given up as migrated, and Kafka Streams closes it and
     * rejoins; if the task is still this instance's, it resumes from the last commit, which at-least-once is built for.
     */
    private void refuseAfterPause() {
        if (pauseGuard.pausedSince(unpausedSinceNanos)) {
            unpausedSinceNanos = System.nanoTime();
            abortStep();
            String why = "task " + context.taskId() + ": this JVM was paused for longer than " + pauseGuard.threshold().toMillis()
                    + " ms, past what its group session may survive; another instance may own the task now, so nothing decided after "
                    + "the pause is written (at-least-once has no fencing); the task is given up to rejoin";
            log.warn(why);
            throw new TaskMigratedException(why);
        }
    }

    private void abortStep() {
        sites.abortStep();
        deadlines.abortStep();
        emit.abortStep();
    }

    private String position() {
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?");
    }

    private void deadLetter(Record<byte[], byte[]> record, String reason) {
        settings.metrics().deadLettered();
        RecordMetadata meta = context.recordMetadata().orElse(null);
        log.warn("dead-lettering record of {}: {}", position(), reason);
        emit.deadLetter(meta == null ? "" : meta.topic(), meta == null ? -1 : meta.partition(), meta == null ? -1 : meta.offset(),
                record.key(), record.value(), reason);
    }
}
