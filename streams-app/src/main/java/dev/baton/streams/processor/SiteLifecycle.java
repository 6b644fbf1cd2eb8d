package dev.baton.streams.processor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;

import dev.baton.events.ActivityTask;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.config.QueueTimeouts;
import dev.baton.streams.state.DeadlineIndex;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.Fence;
import dev.baton.streams.state.SiteStore;

/**
 * The moves every rule is made of: start an attempt, re-deliver a generation, resolve, revoke.
 * Each move writes the stores, emits its records and one history event; the Streams transaction
 * makes the whole step atomic.
 */
final class SiteLifecycle {

    private static final int MAX_WAITERS = 64;

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

    SiteLifecycle(SiteStore sites, DeadlineIndex deadlines, Emitter emit, SiteMetrics metrics,
                  long defaultHeartbeatWindowMs, long dedupeWindowMs, RetryPolicies retries, WorkerCensus census,
                  QueueService queueService, QueueTimeouts queueTimeouts) {
        this.queueTimeouts = queueTimeouts;
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

    /** A new attempt of a site: new state, first generation, task published, timeouts armed. */
    SiteState start(SiteKey site, DispatchCommand cmd, long firstRequestedAtMillis) {
        long now = emit.now();
        SiteState state = SiteState.newBuilder()
                .setState(SiteStatus.PENDING).setAttempt(cmd.getAttempt()).setGeneration(1)
                .setRequestId(cmd.getRequestId()).setReplyKey(cmd.getReplyKey()).setRunId(cmd.getRunId())
                .setIdempotencyKey(cmd.getIdempotencyKey()).setQueue(cmd.getQueue()).setActivityType(cmd.getActivityType())
                .setNode(cmd.getNode()).setInput(cmd.getInput()).setRetryPolicy(cmd.getRetryPolicy())
                .setTimeouts(queueTimeouts.resolve(cmd.getQueue(), cmd.getTimeouts()))
                .setCreatedAtMillis(now).setFirstRequestedAtMillis(firstRequestedAtMillis).setDeadlines(new HashMap<>())
                .setWaiters(new ArrayList<>())
                .build();
        Timeouts t = state.getTimeouts();
        if (t != null && t.getScheduleToStartMillis() != null) {
            arm(site, state, DeadlineKind.SCHEDULE_TO_START, now + t.getScheduleToStartMillis());
        }
        if (t != null && t.getScheduleToCloseMillis() != null) {
            arm(site, state, DeadlineKind.SCHEDULE_TO_CLOSE, firstRequestedAtMillis + t.getScheduleToCloseMillis());
        }
        publishGeneration(site, state);
        emit.history(site, history(site, state, HistoryKind.DISPATCHED, null).setIdempotencyKey(cmd.getIdempotencyKey()).build());
        metrics.dispatched();
        return state;
    }

    /** The same attempt again as a new generation: the old tokens are revoked, the task republished. */
    void redeliver(SiteKey site, SiteState state, HistoryKind why, String reason) {
        stopHolder(site, state, reason);
        state.setGeneration(state.getGeneration() + 1);
        state.setWorkerId(null);
        disarm(site, state, DeadlineKind.HEARTBEAT);
        disarm(site, state, DeadlineKind.START_TO_CLOSE);
        publishGeneration(site, state);
        emit.history(site, history(site, state, why, reason).build());
    }

    /** Publishes the outcome to the caller, stores it for the dedupe window and retires the fence. */
    void resolve(SiteKey site, SiteState state, OutcomeStatus status, Payload output, String reason, String resolvingToken,
                 HistoryKind kind) {
        resolve(site, state, status, output, reason, resolvingToken, kind, state.getGeneration());
    }

    void resolve(SiteKey site, SiteState state, OutcomeStatus status, Payload output, String reason, String resolvingToken,
                 HistoryKind kind, int reportedGeneration) {
        long now = emit.now();
        Fence.revoke(state);
        disarmAll(site, state);
        String worker = state.getWorkerId();
        state.setState(SiteStatus.RESOLVED);
        state.setOutcomeStatus(status);
        state.setOutcomeOutput(output);
        state.setOutcomeReason(reason);
        state.setResolvedToken(resolvingToken);
        // The dedupe window needs the outcome, not the work: the input (up to max.payload.bytes)
        // would otherwise be stored, changelogged and compacted for the whole window.
        state.setInput(null);
        arm(site, state, DeadlineKind.EXPIRE, now + dedupeWindowMs);
        sites.put(site, state);
        emit.outcome(state.getReplyKey(), outcome(site, state, state.getRequestId(), state.getReplyKey(), worker));
        for (Waiter w : state.getWaiters()) {
            emit.outcome(w.getReplyKey(), outcome(site, state, w.getRequestId(), w.getReplyKey(), worker));
        }
        state.setWaiters(new ArrayList<>());
        HistoryEvent.Builder h = history(site, state, kind, reason).setOutput(output).setWorkerId(worker).setGeneration(reportedGeneration);
        emit.history(site, h.build());
        metrics.resolved(status, reason);
    }

    /**
     * A failed attempt: retried after its backoff when the policy allows ({@code BACKOFF}, the caller
     * is not woken), otherwise resolved with the failure.
     */
    void fail(SiteKey site, SiteState state, String reason, String failingToken, HistoryKind kind) {
        fail(site, state, reason, failingToken, kind, state.getGeneration());
    }

    void fail(SiteKey site, SiteState state, String reason, String failingToken, HistoryKind kind, int reportedGeneration) {
        OptionalLong backoff = retries.backoffAfter(state.getRetryPolicy(), state.getAttempt(), reason);
        if (backoff.isEmpty()) {
            resolve(site, state, OutcomeStatus.FAILED, null, reason, failingToken, kind, reportedGeneration);
            return;
        }
        String worker = state.getWorkerId();
        Fence.revoke(state);
        disarm(site, state, DeadlineKind.HEARTBEAT);
        disarm(site, state, DeadlineKind.START_TO_CLOSE);
        disarm(site, state, DeadlineKind.SCHEDULE_TO_START);
        state.setState(SiteStatus.BACKOFF);
        state.setWorkerId(null);
        arm(site, state, DeadlineKind.RETRY, emit.now() + backoff.getAsLong());
        sites.put(site, state);
        emit.history(site, history(site, state, kind, reason).setWorkerId(worker).setGeneration(reportedGeneration).build());
        emit.history(site, history(site, state, HistoryKind.RETRY_SCHEDULED,
                "attempt " + (state.getAttempt() + 1) + " in " + backoff.getAsLong() + " ms").build());
    }

    /** The backoff is over: the next attempt starts for the same caller, through the takeover path's start. */
    void retry(SiteKey site, SiteState state) {
        DispatchCommand next = DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED)
                .setSite(site.toRef()).setRequestId(state.getRequestId()).setReplyKey(state.getReplyKey())
                .setAttempt(state.getAttempt() + 1).setRunId(state.getRunId()).setIdempotencyKey(state.getIdempotencyKey())
                .setQueue(state.getQueue()).setActivityType(state.getActivityType()).setNode(state.getNode())
                .setInput(state.getInput()).setRetryPolicy(state.getRetryPolicy()).setTimeouts(state.getTimeouts())
                .setRequestedAtMillis(emit.now()).build();
        disarmAll(site, state);
        start(site, next, state.getFirstRequestedAtMillis());
    }

    /**
     * A duplicate dispatch's caller waits for the same outcome (nothing runs twice). Capped so a
     * retry storm cannot grow a site's state without bound; callers past the cap get nothing here
     * and can re-ask after resolution (the stored outcome is republished).
     */
    void addWaiter(SiteKey site, SiteState state, String requestId, String replyKey) {
        if (state.getWaiters().size() < MAX_WAITERS && !requestId.equals(state.getRequestId())) {
            List<Waiter> waiters = new ArrayList<>(state.getWaiters());
            waiters.add(new Waiter(requestId, replyKey));
            state.setWaiters(waiters);
            sites.put(site, state);
        }
    }

    /** Revokes the held generation, tells its worker to stop and fails its caller with {@code reason}. */
    void supersede(SiteKey site, SiteState held, String reason) {
        stopHolder(site, held, reason);
        disarmAll(site, held);
        emit.outcome(held.getReplyKey(), Outcome.newBuilder().setStatus(OutcomeStatus.FAILED).setSite(site.toRef())
                .setRequestId(held.getRequestId()).setReplyKey(held.getReplyKey()).setAttempt(held.getAttempt())
                .setReason(reason).setWorkerId(held.getWorkerId()).setAtMillis(emit.now()).build());
        emit.history(site, history(site, held, HistoryKind.SUPERSEDED, reason).setWorkerId(held.getWorkerId()).build());
        metrics.resolved(OutcomeStatus.FAILED, reason);
    }

    /** An outcome for a stored, resolved site, sent to a (possibly new) caller. */
    Outcome outcome(SiteKey site, SiteState state, String requestId, String replyKey, String workerId) {
        return Outcome.newBuilder().setStatus(state.getOutcomeStatus()).setSite(site.toRef()).setRequestId(requestId)
                .setReplyKey(replyKey).setAttempt(state.getAttempt()).setOutput(state.getOutcomeOutput())
                .setReason(state.getOutcomeReason()).setWorkerId(workerId).setAtMillis(emit.now()).build();
    }

    void stopWorker(String workerId, SiteKey site, int attempt, int generation, String reason) {
        if (workerId == null || workerId.isEmpty()) {
            return;
        }
        emit.control(WorkerControl.newBuilder().setKind(WorkerControlKind.STOP).setWorkerId(workerId).setSite(site.toRef())
                .setAttempt(attempt).setGeneration(generation).setReason(reason).setAtMillis(emit.now()).build());
    }

    HistoryEvent.Builder history(SiteKey site, SiteState state, HistoryKind kind, String reason) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(site.toRef()).setAttempt(state.getAttempt())
                .setGeneration(state.getGeneration()).setQueue(state.getQueue()).setActivityType(state.getActivityType())
                .setRequestId(state.getRequestId()).setReason(reason).setAtMillis(emit.now());
    }

    void arm(SiteKey site, SiteState state, DeadlineKind kind, long atMillis) {
        disarm(site, state, kind);
        state.getDeadlines().put(kind.name(), atMillis);
        deadlines.arm(site, kind, atMillis);
    }

    void disarm(SiteKey site, SiteState state, DeadlineKind kind) {
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

    private void stopHolder(SiteKey site, SiteState state, String reason) {
        Fence.revoke(state);
        stopWorker(state.getWorkerId(), site, state.getAttempt(), state.getGeneration(), reason);
    }

    private void publishGeneration(SiteKey site, SiteState state) {
        boolean served = queueService.observe(state.getQueue(), census.liveWorkers(state.getQueue()));
        state.setState(served ? SiteStatus.PENDING : SiteStatus.UNSERVED);
        CompletionToken token = Fence.issue(state);
        Timeouts t = state.getTimeouts();
        Long scheduleToStart = state.getDeadlines().get(DeadlineKind.SCHEDULE_TO_START.name());
        emit.task(site, ActivityTask.newBuilder().setSite(site.toRef()).setAttempt(state.getAttempt())
                .setGeneration(state.getGeneration()).setToken(token.value()).setIdempotencyKey(state.getIdempotencyKey())
                .setQueue(state.getQueue()).setActivityType(state.getActivityType()).setNode(state.getNode())
                .setInput(state.getInput()).setHeartbeatWindowMillis(heartbeatWindowMs(state))
                .setStartToCloseMillis(t == null ? null : t.getStartToCloseMillis())
                .setScheduledAtMillis(emit.now()).setDeadlineMillis(scheduleToStart).build());
        sites.put(site, state);
    }
}
