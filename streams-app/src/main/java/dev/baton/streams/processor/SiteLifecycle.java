package dev.baton.streams.processor;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.Failure;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.Refusal;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.Superseded;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.state.DeadlineIndex;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.Fence;
import dev.baton.streams.state.SiteStore;
import dev.baton.streams.state.StepInput;

/**
 * The moves every rule is made of: start a run, retry, re-deliver a generation, resolve, supersede,
 * revoke. Each move writes the stores, emits its records and one history event; the processor
 * commits or aborts the whole step, and the Streams transaction makes it atomic with its input.
 *
 * <p>A run has callers: the one whose request started it ({@code requestId}) and those who joined
 * it with the same idempotency key ({@code waiters}). Every caller gets exactly one outcome: the
 * run's, when it resolves (retries continue the same run), or {@code superseded:} when a higher
 * attempt takes the site over.
 */
final class SiteLifecycle {

    /** Callers besides the first that one run remembers; more are answered at once (see {@link #join}). */
    static final int MAX_WAITERS = 64;
    /** At-least-once: the earlier runs and the refusals a row remembers (see {@link #rememberRun} and {@link #rememberRefusal}). */
    static final int MAX_REMEMBERED = 8;
    /** At-least-once: the most output bytes the remembered earlier runs keep between them; older runs are forgotten first. */
    static final int MAX_REMEMBERED_OUTPUT_BYTES = 64 * 1024;

    private final SiteStore sites;
    private final DeadlineIndex deadlines;
    private final Emitter emit;
    private final SiteMetrics metrics;
    private final long defaultHeartbeatWindowMs;
    private final long dedupeWindowMs;
    private final RetryPolicies retries;
    private final WorkerCensus census;
    private final QueueService queueService;
    private final QueueTimeouts queueTimeouts;
    /** The streams app's token key, or null: new sites then get random secrets. */
    private final byte[] tokenKey;
    /** At-least-once: rows remember earlier runs and refusals, so a request read again gets the answer it got. */
    private final boolean atLeastOnce;

    SiteLifecycle(SiteStore sites, DeadlineIndex deadlines, Emitter emit, SiteMetrics metrics,
                  long defaultHeartbeatWindowMs, long dedupeWindowMs, RetryPolicies retries, WorkerCensus census,
                  QueueService queueService, QueueTimeouts queueTimeouts, byte[] tokenKey, boolean atLeastOnce) {
        this.atLeastOnce = atLeastOnce;
        this.queueTimeouts = queueTimeouts;
        this.tokenKey = tokenKey;
        this.retries = retries;
        this.census = census;
        this.queueService = queueService;
        this.sites = sites;
        this.deadlines = deadlines;
        this.emit = emit;
        this.metrics = metrics;
        this.defaultHeartbeatWindowMs = defaultHeartbeatWindowMs;
        this.dedupeWindowMs = dedupeWindowMs;
    }

    /**
     * A new run of a site for {@code cmd}'s caller: new state at the command's attempt, first
     * generation, task published, timeouts armed. {@code previous}, the site's earlier row if any,
     * lends its token secret (so tokens it issued stay recognisable) and its last self-ended token.
     */
    SiteState startRun(SiteKey site, SiteState previous, DispatchCommand cmd, long firstRequestedAtMillis) {
        SiteState state = newRow(cmd, queueTimeouts.resolve(cmd.getQueue(), cmd.getTimeouts()), emit.now(), firstRequestedAtMillis);
        if (previous == null) {
            state.setTokenSecret(newSecret(site));
        } else if (previous.getState() == SiteStatus.REFUSED) {
            // No run before this one: a first run, which keeps remembering the refusals.
            disarmAll(site, previous);
            state.setTokenSecret(newSecret(site));
            state.setRefusals(previous.getRefusals());
        } else {
            disarmAll(site, previous);
            state.setTokenSecret(previous.getTokenSecret());
            state.setResolvedToken(previous.getResolvedToken());
            state.setSuperseded(previous.getSuperseded());
            state.setEarlierRuns(previous.getEarlierRuns());
            state.setRefusals(previous.getRefusals());
            if (previous.getState() == SiteStatus.RESOLVED) {
                rememberRun(state, previous.getPreviousRun());
                state.setPreviousRun(new PreviousRun(previous.getAttempt(), previous.getOutcomeStatus(), previous.getOutcomeReason(),
                        previous.getOutcomeOutput(), callers(previous), previous.getOutcomeFailure()));
            } else {
                state.setPreviousRun(previous.getPreviousRun());
            }
        }
        beginAttempt(site, state, stepTime());
        return state;
    }

    /**
     * The time a step's timers count from: its input's time ({@link StepInput#timeMs()}: a dispatch
     * record's timestamp, a deadline's due time), no later than now; now for a worker's report or a
     * timer step. Read again after an at-least-once restart, a step then arms the deadlines it armed
     * the first time, so the deadline records already in the log still match them: a schedule-to-start
     * or a backoff re-armed by the wall clock of the second reading would make the first record stale
     * and decide again, later, what was already answered.
     */
    private long stepTime() {
        long now = emit.now();
        long input = sites.stepInput().timeMs();
        return input >= 0 ? Math.min(now, input) : now;
    }

    /**
     * The row of a new run, before its secret and history are added. Made with the row's setters, not
     * Avro's builder, so every field is set here: the ones the run decides, and every other field whose
     * schema default is not null to that default (the builder looked defaults up through a cache whose
     * key hashes the field's whole schema, then copied and validated field by field: most of the cost
     * of starting a run; docs/decisions.md, issue 29). {@code NewRowTest} fails when a field is added
     * to the schema and not here.
     */
    static SiteState newRow(DispatchCommand cmd, Timeouts timeouts, long now, long firstRequestedAtMillis) {
        SiteState row = new SiteState();
        row.setState(SiteStatus.PENDING);
        row.setAttempt(cmd.getAttempt());
        row.setCallerAttempt(cmd.getAttempt());
        row.setGeneration(1);
        row.setRequestId(cmd.getRequestId());
        row.setReplyKey(cmd.getReplyKey());
        row.setRunId(cmd.getRunId());
        row.setIdempotencyKey(cmd.getIdempotencyKey());
        row.setQueue(cmd.getQueue());
        row.setActivityType(cmd.getActivityType());
        row.setNode(cmd.getNode());
        row.setInput(cmd.getInput());
        row.setRetryPolicy(cmd.getRetryPolicy());
        row.setTimeouts(timeouts);
        row.setCreatedAtMillis(now);
        row.setFirstRequestedAtMillis(firstRequestedAtMillis);
        row.setDeadlines(new HashMap<>());
        row.setDeadlineInputs(new HashMap<>());
        row.setWaiters(new ArrayList<>());
        row.setTransportLosses(0);
        row.setDispatchOffset(-1L);
        row.setEventsOffset(-1L);
        row.setEarlierRuns(new ArrayList<>());
        row.setRefusals(new ArrayList<>());
        return row; // every other field's default is null, the no-argument constructor's value
    }

    /**
     * At-least-once: the row of a site with no run, made to remember a refusal ({@link #rememberRefusal}): no token, no
     * input, no caller ({@link #isCaller} is false for it), forgotten at the end of the dedupe window like a resolved row.
     * Its request fields are the refused request's, for an operator reading it.
     */
    SiteState refusalRow(SiteKey site, DispatchCommand cmd) {
        SiteState row = newRow(cmd, null, emit.now(), emit.now());
        row.setState(SiteStatus.REFUSED);
        row.setAttempt(Math.max(cmd.getAttempt(), 0));
        row.setCallerAttempt(row.getAttempt());
        row.setGeneration(0);
        row.setInput(null);
        arm(site, row, DeadlineKind.EXPIRE, emit.now() + dedupeWindowMs);
        return row;
    }

    /**
     * A new row's token secret: derived from the token key and the dispatch record creating the row
     * when a key is set (required under at-least-once: reprocessing that record re-creates the same
     * secret, so tokens already delivered stay valid), otherwise random.
     */
    private ByteBuffer newSecret(SiteKey site) {
        StepInput in = sites.stepInput();
        return ByteBuffer.wrap(tokenKey == null || in.source() != StepInput.Source.DISPATCH ? CompletionToken.newSiteSecret()
                : CompletionToken.siteSecret(tokenKey, site.toBytes(), in.partition(), in.offset()));
    }

    /** The backoff is over: the next attempt of the same run, for the same callers. */
    void retry(SiteKey site, SiteState state) {
        disarmAll(site, state);
        state.setAttempt(state.getAttempt() + 1);
        state.setGeneration(1);
        state.setTransportLosses(0);
        state.setWorkerId(null);
        state.setCreatedAtMillis(emit.now());
        beginAttempt(site, state, stepTime());
    }

    private void beginAttempt(SiteKey site, SiteState state, long startedAtMillis) {
        Timeouts t = state.getTimeouts();
        if (t != null && t.getScheduleToStartMillis() != null) {
            arm(site, state, DeadlineKind.SCHEDULE_TO_START, startedAtMillis + t.getScheduleToStartMillis());
        }
        if (t != null && t.getScheduleToCloseMillis() != null) {
            arm(site, state, DeadlineKind.SCHEDULE_TO_CLOSE, state.getFirstRequestedAtMillis() + t.getScheduleToCloseMillis());
        }
        publishGeneration(site, state);
        HistoryEvent dispatched = Answers.runHistory(site.toRef(), state, HistoryKind.DISPATCHED, state.getGeneration(), null, null, emit.now());
        dispatched.setIdempotencyKey(state.getIdempotencyKey());
        emit.history(site, dispatched);
        metrics.dispatched();
    }

    /**
     * The same attempt again as a new generation: the old token is revoked, the task republished.
     * {@code stopHolder} is false when the holder gave the generation back itself (a park).
     */
    void redeliver(SiteKey site, SiteState state, HistoryKind why, String reason, boolean stopHolder) {
        if (stopHolder) {
            stopHolder(site, state, reason);
        }
        Fence.revoke(state);
        state.setGeneration(state.getGeneration() + 1);
        state.setWorkerId(null);
        disarm(site, state, DeadlineKind.HEARTBEAT);
        disarm(site, state, DeadlineKind.START_TO_CLOSE);
        publishGeneration(site, state);
        emit.history(site, Answers.history(site.toRef(), state, why, reason, emit.now()).build());
    }

    /** Resolves the run: every caller gets the outcome, which is kept for the dedupe window; the fence is retired. */
    void resolve(SiteKey site, SiteState state, OutcomeStatus status, Payload output, String reason, HistoryKind kind,
                 int reportedGeneration) {
        resolve(site, state, status, output, reason, null, kind, reportedGeneration);
    }

    /** As above, with the structured failure a worker reported (null for none). */
    void resolve(SiteKey site, SiteState state, OutcomeStatus status, Payload output, String reason, Failure failure, HistoryKind kind,
                 int reportedGeneration) {
        long now = emit.now();
        String worker = state.getWorkerId();
        Fence.revoke(state);
        disarmAll(site, state);
        state.setState(SiteStatus.RESOLVED);
        state.setOutcomeStatus(status);
        state.setOutcomeOutput(output);
        state.setOutcomeReason(reason);
        state.setOutcomeFailure(failure);
        state.setHeartbeatDetails(null); // nothing will resume this run
        // The dedupe window needs the outcome, not the work: the input (up to max.payload.bytes)
        // would otherwise be stored, changelogged and compacted for the whole window.
        state.setInput(null);
        arm(site, state, DeadlineKind.EXPIRE, now + dedupeWindowMs);
        for (Waiter caller : callers(state)) {
            emit.outcome(caller.getReplyKey(), Answers.resolved(site.toRef(), state, caller, worker, emit.now()));
        }
        sites.put(site, state);
        HistoryEvent h = Answers.runHistory(site.toRef(), state, kind, reportedGeneration, worker, reason, emit.now());
        h.setOutput(output);
        h.setFailure(failure);
        emit.history(site, h);
        metrics.resolved(state, status, reason);
    }

    /**
     * A failed attempt: retried after its backoff when the policy allows ({@code BACKOFF}, no caller
     * is woken), otherwise the run resolves with the failure.
     */
    void fail(SiteKey site, SiteState state, String reason, HistoryKind kind, int reportedGeneration) {
        fail(site, state, reason, null, kind, reportedGeneration);
    }

    /** As above, with the structured failure a worker reported (null for none): in the outcome, or in history when retried. */
    void fail(SiteKey site, SiteState state, String reason, Failure failure, HistoryKind kind, int reportedGeneration) {
        OptionalLong backoff = retries.backoffAfter(state.getRetryPolicy(), state.getAttempt(), reason);
        if (backoff.isEmpty()) {
            resolve(site, state, OutcomeStatus.FAILED, null, reason, failure, kind, reportedGeneration);
            return;
        }
        String worker = state.getWorkerId();
        Fence.revoke(state);
        disarm(site, state, DeadlineKind.HEARTBEAT);
        disarm(site, state, DeadlineKind.START_TO_CLOSE);
        disarm(site, state, DeadlineKind.SCHEDULE_TO_START);
        state.setState(SiteStatus.BACKOFF);
        state.setWorkerId(null);
        arm(site, state, DeadlineKind.RETRY, stepTime() + backoff.getAsLong());
        sites.put(site, state);
        emit.history(site, Answers.history(site.toRef(), state, kind, reason, emit.now()).setFailure(failure).setWorkerId(worker)
                .setGeneration(reportedGeneration).build());
        emit.history(site, Answers.history(site.toRef(), state, HistoryKind.RETRY_SCHEDULED,
                "attempt " + (state.getAttempt() + 1) + " in " + backoff.getAsLong() + " ms", emit.now()).build());
    }

    /**
     * A new request with the run's idempotency key joins the live run: nothing runs twice, and its
     * caller gets the run's outcome. Capped so a retry storm cannot grow a site's row without bound:
     * false when the run has its fill of callers (the caller is told so at once and can re-send after
     * the run resolves).
     */
    boolean join(SiteKey site, SiteState state, String requestId, String replyKey) {
        if (state.getWaiters().size() >= MAX_WAITERS) {
            return false;
        }
        List<Waiter> waiters = new ArrayList<>(state.getWaiters());
        waiters.add(new Waiter(requestId, replyKey));
        state.setWaiters(waiters);
        sites.put(site, state);
        return true;
    }

    /** Whether {@code requestId} is one of the run's callers (kept after it resolves, for the dedupe window). */
    static boolean isCaller(SiteState state, String requestId) {
        if (state.getState() == SiteStatus.REFUSED) {
            return false; // a refusal-only row has no run; its request fields name the request it refused
        }
        return state.getRequestId().equals(requestId) || state.getWaiters().stream().anyMatch(w -> w.getRequestId().equals(requestId));
    }

    /**
     * Attempt {@code byAttempt} takes the site over: the holder is stopped and every caller of the
     * held run is told {@code superseded:}. The callers are remembered, so a request of theirs sent
     * again gets the same answer.
     */
    void supersede(SiteKey site, SiteState held, int byAttempt) {
        String reason = Answers.supersededReason(byAttempt);
        stopHolder(site, held, reason);
        Fence.revoke(held);
        disarmAll(site, held);
        List<Waiter> superseded = callers(held);
        for (Waiter caller : superseded) {
            emit.outcome(caller.getReplyKey(), Answers.superseded(site.toRef(), held.getAttempt(), byAttempt, caller, held.getWorkerId(),
                    emit.now()));
        }
        Superseded before = held.getSuperseded();
        if (before != null) {
            rememberRun(held, new PreviousRun(before.getAttempt(), OutcomeStatus.FAILED, Answers.supersededReason(before.getByAttempt()),
                    null, before.getCallers(), null));
        }
        held.setSuperseded(new Superseded(held.getAttempt(), byAttempt, superseded));
        emit.history(site, Answers.history(site.toRef(), held, HistoryKind.SUPERSEDED, reason, emit.now())
                .setWorkerId(held.getWorkerId()).build());
        metrics.resolved(held, OutcomeStatus.FAILED, reason);
    }

    /**
     * At-least-once: {@code run}, leaving {@code previousRun} or {@code superseded} for a newer one,
     * joins the row's earlier runs (the last {@value #MAX_REMEMBERED}, with at most
     * {@value #MAX_REMEMBERED_OUTPUT_BYTES} output bytes between them; the oldest go first). A
     * request of its callers read again, reprocessed after a restart whose state is ahead of it or
     * sent again, then gets the answer it got, not whatever the newer run would decide for it.
     */
    void rememberRun(SiteState row, PreviousRun run) {
        if (!atLeastOnce || run == null) {
            return;
        }
        List<PreviousRun> runs = new ArrayList<>(row.getEarlierRuns());
        runs.add(run);
        while (runs.size() > MAX_REMEMBERED || outputBytes(runs) > MAX_REMEMBERED_OUTPUT_BYTES) {
            runs.remove(0);
        }
        row.setEarlierRuns(runs);
    }

    private static long outputBytes(List<PreviousRun> runs) {
        return runs.stream().mapToLong(r -> r.getOutput() == null ? 0 : r.getOutput().getData().remaining()).sum();
    }

    /**
     * At-least-once: the site refused {@code requestId} (it is no caller of any run): the row keeps
     * the refusal among its last {@value #MAX_REMEMBERED}, so the request read again gets it again.
     * The refusal then writes the row, which also stamps the dispatch's offset on it.
     */
    void rememberRefusal(SiteKey site, SiteState row, String requestId, int attempt, String reason) {
        if (!atLeastOnce) {
            return;
        }
        List<Refusal> refusals = new ArrayList<>(row.getRefusals());
        refusals.add(new Refusal(requestId, attempt, reason));
        while (refusals.size() > MAX_REMEMBERED) {
            refusals.remove(0);
        }
        row.setRefusals(refusals);
        sites.put(site, row);
    }

    /**
     * Tells the worker holding the current generation to stop. The request carries the fingerprint
     * of the token being revoked, and the worker stops only a run holding that token. While no lease
     * is known (the task waits, or a plain-lease worker runs it and has not reported yet), no worker
     * can be named: the stop goes on the task's own partition, after the task, so whichever worker
     * reads the task reads the stop next and does not start it (or stops it).
     */
    void stopHolder(SiteKey site, SiteState state, String reason) {
        if (state.getToken() == null) {
            return;
        }
        if (state.getState() == SiteStatus.PENDING || state.getState() == SiteStatus.UNSERVED) {
            emit.taskStop(site, taskStop(site, state));
        }
        stop(state.getWorkerId(), site, state.getAttempt(), state.getGeneration(), state.getToken(), reason);
    }

    /** The stop of the current generation's task: no token, no input, a deadline long passed (see ActivityTask.avsc). */
    private ActivityTask taskStop(SiteKey site, SiteState state) {
        return ActivityTask.newBuilder().setSite(site.toRef()).setAttempt(state.getAttempt()).setGeneration(state.getGeneration())
                .setToken("").setIdempotencyKey(state.getIdempotencyKey()).setQueue(state.getQueue())
                .setActivityType(state.getActivityType()).setNode(state.getNode()).setScheduledAtMillis(emit.now())
                .setDeadlineMillis(0L).setStopTokenFingerprint(CompletionToken.fingerprint(state.getToken())).build();
    }

    /** Tells {@code workerId} to stop its run of {@code token}, a token this site issued and no longer accepts. */
    void stop(String workerId, SiteKey site, int attempt, int generation, String token, String reason) {
        if (workerId == null || workerId.isEmpty()) {
            return;
        }
        emit.control(WorkerControl.newBuilder().setKind(WorkerControlKind.STOP).setWorkerId(workerId).setSite(site.toRef())
                .setAttempt(attempt).setGeneration(generation).setReason(reason).setAtMillis(emit.now())
                .setTokenFingerprint(CompletionToken.fingerprint(token)).build());
    }

    void arm(SiteKey site, SiteState state, DeadlineKind kind, long atMillis) {
        disarm(site, state, kind);
        state.getDeadlines().put(kind.name(), atMillis);
        long stamp = sites.stepInput().armStamp();
        if (stamp >= 0) {
            state.getDeadlineInputs().put(kind.name(), stamp);
        }
        deadlines.arm(site, kind, atMillis);
    }

    void disarm(SiteKey site, SiteState state, DeadlineKind kind) {
        state.getDeadlineInputs().remove(kind.name());
        Long at = state.getDeadlines().remove(kind.name());
        if (at != null) {
            deadlines.disarm(site, kind, at);
        }
    }

    void disarmAll(SiteKey site, SiteState state) {
        for (DeadlineKind kind : DeadlineKind.values()) {
            disarm(site, state, kind);
        }
    }

    long heartbeatWindowMs(SiteState state) {
        Timeouts t = state.getTimeouts();
        return t != null && t.getHeartbeatMillis() != null ? t.getHeartbeatMillis() : defaultHeartbeatWindowMs;
    }

    /** The lowest attempt a request may name to join the run (rows written before callerAttempt existed hold 0). */
    static int callerAttempt(SiteState state) {
        return state.getCallerAttempt() > 0 ? state.getCallerAttempt() : state.getAttempt();
    }

    /** The run's callers: the one that started it, then those who joined. */
    static List<Waiter> callers(SiteState state) {
        List<Waiter> all = new ArrayList<>(state.getWaiters().size() + 1);
        all.add(new Waiter(state.getRequestId(), state.getReplyKey()));
        all.addAll(state.getWaiters());
        return all;
    }

    private void publishGeneration(SiteKey site, SiteState state) {
        boolean served = queueService.observe(state.getQueue(), state.getNode(), census.liveWorkers(state.getQueue(), state.getNode()));
        state.setState(served ? SiteStatus.PENDING : SiteStatus.UNSERVED);
        keepHeartbeatWindow(state);
        emit.task(site, task(site, state, Fence.issue(state)));
        sites.put(site, state);
    }

    /**
     * The task tells its worker the heartbeat window to keep; the row keeps the same one. A run that set none took
     * {@code heartbeat.window.ms}, read at each use: restarted with a lower one, the app judged running leases by a
     * window their workers were never told, and declared healthy runs lost (h/adv22s).
     */
    private void keepHeartbeatWindow(SiteState state) {
        Timeouts t = state.getTimeouts();
        if (t == null) {
            state.setTimeouts(new Timeouts(null, null, null, defaultHeartbeatWindowMs));
        } else if (t.getHeartbeatMillis() == null) {
            state.setTimeouts(new Timeouts(t.getScheduleToStartMillis(), t.getStartToCloseMillis(), t.getScheduleToCloseMillis(),
                    defaultHeartbeatWindowMs));
        }
    }

    /**
     * Emits again what the row says its steps emitted: the current generation's task while it waits
     * for a worker, the outcome to every caller once resolved, and {@code superseded:} to the callers
     * the last takeover ended. For a record that turns out to be applied already (reprocessed after an
     * at-least-once restart, with the state restored ahead of the committed input): its outputs may
     * have been lost in the crash. The copies are identical (same token, same outcome), and workers
     * and clients drop what they already have.
     */
    void reassert(SiteKey site, SiteState state) {
        switch (state.getState()) {
            case PENDING, UNSERVED -> {
                if (state.getToken() != null) {
                    emit.task(site, task(site, state, new CompletionToken(state.getToken())));
                }
            }
            case RESOLVED -> {
                for (Waiter caller : callers(state)) {
                    emit.outcome(caller.getReplyKey(), Answers.resolved(site.toRef(), state, caller, state.getWorkerId(), emit.now()));
                }
            }
            default -> { }
        }
        Superseded gone = state.getSuperseded();
        if (gone != null) {
            for (Waiter caller : gone.getCallers()) {
                emit.outcome(caller.getReplyKey(), Answers.superseded(site.toRef(), gone.getAttempt(), gone.getByAttempt(), caller, null,
                        emit.now()));
            }
        }
        List<PreviousRun> ended = new ArrayList<>(state.getEarlierRuns());
        if (state.getPreviousRun() != null) {
            ended.add(state.getPreviousRun());
        }
        for (PreviousRun before : ended) {
            for (Waiter caller : before.getCallers()) {
                emit.outcome(caller.getReplyKey(), Answers.previousRun(site.toRef(), before, caller, emit.now()));
            }
        }
        emit.history(site, Answers.history(site.toRef(), state, HistoryKind.OUTCOME_REPUBLISHED,
                "reprocessed a record already applied: outputs re-emitted", emit.now()).build());
    }

    /** Made with the record's constructor, not Avro's builder (which copies and validates field by field): one per generation. */
    private ActivityTask task(SiteKey site, SiteState state, CompletionToken token) {
        Timeouts t = state.getTimeouts();
        Long scheduleToStart = state.getDeadlines().get(DeadlineKind.SCHEDULE_TO_START.name());
        return new ActivityTask(site.toRef(), state.getAttempt(), state.getGeneration(), token.value(), state.getIdempotencyKey(),
                state.getQueue(), state.getActivityType(), state.getNode(), state.getInput(), heartbeatWindowMs(state),
                t == null ? null : t.getStartToCloseMillis(), emit.now(), scheduleToStart, state.getHeartbeatDetails(), null);
    }
}
