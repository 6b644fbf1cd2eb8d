package dev.baton.streams.processor;

import java.util.Optional;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.Fence;
import dev.baton.streams.state.SiteStore;

/**
 * The rules for a worker's report. The token is the only authority: attempt and generation fields
 * of the event are informational, the fence decides.
 */
final class WorkerEventRules {

    private static final String UNMATCHED_REPLY_KEY = "unmatched";

    private final SiteStore sites;
    private final SiteLifecycle lifecycle;
    private final Emitter emit;
    private final SiteMetrics metrics;

    WorkerEventRules(SiteStore sites, SiteLifecycle lifecycle, Emitter emit, SiteMetrics metrics) {
        this.sites = sites;
        this.lifecycle = lifecycle;
        this.emit = emit;
        this.metrics = metrics;
    }

    void on(SiteKey site, WorkerEvent event) {
        Optional<SiteState> current = sites.get(site);
        if (current.isEmpty() || current.get().getState() == SiteStatus.RESOLVED) {
            notLive(site, current, event);
            return;
        }
        SiteState state = current.get();
        if (!Fence.accepts(state, event.getToken())) {
            refuse(site, event, "token is not the current generation's (site at attempt " + state.getAttempt()
                    + " generation " + state.getGeneration() + ")");
            return;
        }
        switch (event.getKind()) {
            case LEASED -> leased(site, state, event);
            case HEARTBEAT -> heartbeat(site, state, event);
            // History records the generation the worker reported, so an audit of the log alone can
            // show that every accepted completion belonged to the generation that was current.
            case COMPLETED -> lifecycle.resolve(site, withWorker(state, event), OutcomeStatus.COMPLETED, event.getOutput(), null,
                    event.getToken(), HistoryKind.COMPLETED, event.getGeneration());
            case FAILED -> lifecycle.fail(site, withWorker(state, event), Reasons.normalize(event.getReason()), event.getToken(),
                    HistoryKind.FAILED, event.getGeneration());
            case PARKED -> {
                metrics.parked();
                lifecycle.redeliver(site, withWorker(state, event), HistoryKind.PARKED, "parked by worker " + event.getWorkerId());
            }
            default -> refuse(site, event, "unknown worker event kind");
        }
    }

    private void leased(SiteKey site, SiteState state, WorkerEvent event) {
        long now = emit.now();
        state.setState(SiteStatus.LEASED);
        state.setWorkerId(event.getWorkerId());
        lifecycle.disarm(site, state, DeadlineKind.SCHEDULE_TO_START);
        lifecycle.arm(site, state, DeadlineKind.HEARTBEAT, now + lifecycle.heartbeatWindowMs(state));
        if (state.getTimeouts() != null && state.getTimeouts().getStartToCloseMillis() != null) {
            lifecycle.arm(site, state, DeadlineKind.START_TO_CLOSE, now + state.getTimeouts().getStartToCloseMillis());
        }
        sites.put(site, state);
        emit.history(site, lifecycle.history(site, state, HistoryKind.LEASED, null).setWorkerId(event.getWorkerId()).build());
    }

    /** Pushes the heartbeat deadline. Heartbeats are not history: they would dominate the log of a long activity. */
    private void heartbeat(SiteKey site, SiteState state, WorkerEvent event) {
        if (state.getWorkerId() == null) {
            state.setWorkerId(event.getWorkerId()); // the heartbeat overtook its lease
        }
        lifecycle.arm(site, state, DeadlineKind.HEARTBEAT, emit.now() + lifecycle.heartbeatWindowMs(state));
        sites.put(site, state);
    }

    private void notLive(SiteKey site, Optional<SiteState> resolved, WorkerEvent event) {
        boolean lateHalf = resolved.isPresent() && resolved.get().getResolvedToken() != null
                && new CompletionToken(resolved.get().getResolvedToken()).matches(event.getToken())
                && (event.getKind() == WorkerEventKind.LEASED || event.getKind() == WorkerEventKind.HEARTBEAT);
        if (lateHalf) {
            // The lease travelled on a transaction, the completion on a plain producer: it arrived second.
            emit.history(site, event(site, event, HistoryKind.LATE_LEASE_IGNORED, "arrived after its own completion").build());
        } else if (event.getKind() == WorkerEventKind.COMPLETED || event.getKind() == WorkerEventKind.FAILED) {
            String replyKey = resolved.map(SiteState::getReplyKey).orElse(UNMATCHED_REPLY_KEY);
            emit.outcome(replyKey, Outcome.newBuilder()
                    .setStatus(event.getKind() == WorkerEventKind.COMPLETED ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED)
                    .setSite(site.toRef()).setRequestId(resolved.map(SiteState::getRequestId).orElse("")).setReplyKey(replyKey)
                    .setAttempt(event.getAttempt()).setOutput(event.getOutput())
                    .setReason(event.getKind() == WorkerEventKind.FAILED ? Reasons.normalize(event.getReason()) : null)
                    .setUnmatched(true).setWorkerId(event.getWorkerId()).setAtMillis(emit.now()).build());
            emit.history(site, event(site, event, HistoryKind.UNMATCHED_COMPLETION,
                    resolved.isPresent() ? "site already resolved" : "site unknown").build());
            metrics.unmatched();
        } else {
            refuse(site, event, resolved.isPresent() ? "site already resolved" : "site unknown");
        }
    }

    private void refuse(SiteKey site, WorkerEvent event, String why) {
        emit.history(site, event(site, event, HistoryKind.COMPLETION_REFUSED, event.getKind() + " refused: " + why).build());
        lifecycle.stopWorker(event.getWorkerId(), site, event.getAttempt(), event.getGeneration(),
                Reasons.SUPERSEDED + " your token for " + site + " is no longer current");
        metrics.refused();
    }

    private HistoryEvent.Builder event(SiteKey site, WorkerEvent event, HistoryKind kind, String reason) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(site.toRef()).setAttempt(event.getAttempt())
                .setGeneration(event.getGeneration()).setWorkerId(event.getWorkerId()).setReason(reason).setAtMillis(emit.now());
    }

    private static SiteState withWorker(SiteState state, WorkerEvent event) {
        state.setWorkerId(event.getWorkerId());
        return state;
    }
}
