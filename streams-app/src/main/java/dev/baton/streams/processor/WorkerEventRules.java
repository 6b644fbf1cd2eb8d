package dev.baton.streams.processor;

import java.util.Optional;

import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.Fence;
import dev.baton.streams.state.SiteStore;

/**
 * The rules for a worker's report. The token is the only authority ({@link Fence#classify}):
 * <ul>
 *   <li>the current generation's token leases, keeps alive, completes, fails or parks;</li>
 *   <li>a token the site issued earlier is a late report: the slow half of a report pair is ignored
 *       quietly, a late completion of a resolved site is relayed to the outbox for the callers of
 *       its own run (never to a later run's), anything else is
 *       refused and its sender told to stop that run (the stop names the token's fingerprint);</li>
 *   <li>any other token is forged: refused, recorded, and nothing else: no stop to the worker it
 *       names, no relay, no effect on the site, so a worker cannot act on sites it does not hold.</li>
 * </ul>
 */
final class WorkerEventRules {

    private final SiteStore sites;
    private final SiteLifecycle lifecycle;
    private final Emitter emit;
    private final SiteMetrics metrics;
    private final InputDeadLetters inputDeadLetters;

    WorkerEventRules(SiteStore sites, SiteLifecycle lifecycle, Emitter emit, SiteMetrics metrics, InputDeadLetters inputDeadLetters) {
        this.sites = sites;
        this.lifecycle = lifecycle;
        this.emit = emit;
        this.metrics = metrics;
        this.inputDeadLetters = inputDeadLetters;
    }

    /** {@code current} is the site's row as the step found it (read once per step by the processor). */
    void on(SiteKey site, WorkerEvent event, Optional<SiteState> current) {
        if (current.isEmpty() || current.get().getState() == SiteStatus.REFUSED) {
            unknownSite(site, event); // a refusal-only row never ran: no token of it exists
            return;
        }
        SiteState state = current.get();
        switch (Fence.classify(state, event.getToken(), event.getAttempt(), event.getGeneration())) {
            case CURRENT -> current(site, state, event);
            case ISSUED -> late(site, state, event);
            default -> refuse(site, event, "token was not issued by this site for attempt " + event.getAttempt()
                    + " generation " + event.getGeneration());
        }
    }

    private void current(SiteKey site, SiteState state, WorkerEvent event) {
        switch (event.getKind()) {
            case LEASED, HEARTBEAT -> {
                checkpoint(state, event);
                if (state.getState() == SiteStatus.LEASED) {
                    keepAlive(site, state);
                } else {
                    leased(site, state, event); // the first report of a generation leases it, whichever overtook the other
                }
            }
            // History records the generation the worker reported, so an audit of the log alone can
            // show that every accepted completion belonged to the generation that was current.
            case COMPLETED -> lifecycle.resolve(site, endedByHolder(state, event), OutcomeStatus.COMPLETED, event.getOutput(), null,
                    HistoryKind.COMPLETED, event.getGeneration());
            case FAILED -> {
                checkpoint(state, event); // a retryable failure's next attempt resumes from the failed one's last checkpoint
                lifecycle.fail(site, endedByHolder(state, event), Reasons.fromWorker(event.getReason()), event.getFailure(),
                    HistoryKind.FAILED, event.getGeneration());
            }
            case PARKED -> {
                checkpoint(state, event);
                metrics.parked();
                lifecycle.redeliver(site, endedByHolder(state, event), HistoryKind.PARKED, "parked by worker " + event.getWorkerId(), false);
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
        emit.history(site, Answers.runHistory(site.toRef(), state, HistoryKind.LEASED, state.getGeneration(), event.getWorkerId(), null,
                emit.now()));
    }

    /**
     * Keeps the details a current heartbeat carries as the run's checkpoint, handed to its next
     * generation or attempt. A report without details keeps the last ones. Written with the row the
     * heartbeat writes anyway: no record of its own.
     */
    private static void checkpoint(SiteState state, WorkerEvent event) {
        if (event.getHeartbeatDetails() != null) {
            state.setHeartbeatDetails(new Payload(event.getHeartbeatDetails(), event.getHeartbeatContentType() == null
                    ? EncodedPayload.OCTET_STREAM : event.getHeartbeatContentType()));
        }
    }

    /**
     * A heartbeat, or a lease sent again (a lease transaction whose commit timed out is re-sent):
     * pushes the heartbeat deadline. Not history: it would dominate the log of a long activity.
     */
    private void keepAlive(SiteKey site, SiteState state) {
        lifecycle.arm(site, state, DeadlineKind.HEARTBEAT, emit.now() + lifecycle.heartbeatWindowMs(state));
        sites.put(site, state);
    }

    /** A report with a token this site issued to an earlier generation or attempt. */
    private void late(SiteKey site, SiteState state, WorkerEvent event) {
        WorkerEventKind kind = event.getKind();
        boolean selfEnded = state.getResolvedToken() != null && new CompletionToken(state.getResolvedToken()).matches(event.getToken());
        if (selfEnded && (kind == WorkerEventKind.LEASED || kind == WorkerEventKind.HEARTBEAT)) {
            // The lease travelled on a transaction, the rest on a plain producer: it arrived second.
            emit.history(site, event(site, event, HistoryKind.LATE_LEASE_IGNORED, "arrived after its generation ended").build());
        } else if (state.getState() == SiteStatus.RESOLVED && (kind == WorkerEventKind.COMPLETED || kind == WorkerEventKind.FAILED)) {
            if (ofThisRun(state, event)) {
                relayToOutbox(site, state, event);
            } else {
                // A run a takeover superseded (or a resolved run a new one replaced): its callers were answered,
                // and this run's callers never asked for it.
                emit.history(site, event(site, event, HistoryKind.UNMATCHED_COMPLETION, "attempt " + event.getAttempt()
                        + " belongs to an earlier run (this run began at attempt " + SiteLifecycle.callerAttempt(state) + "): not relayed").build());
                metrics.unmatched();
            }
        } else {
            refuse(site, event, "token of attempt " + event.getAttempt() + " generation " + event.getGeneration()
                    + " is no longer current (site at attempt " + state.getAttempt() + " generation " + state.getGeneration() + ")");
            lifecycle.stop(event.getWorkerId(), site, event.getAttempt(), event.getGeneration(), event.getToken(),
                    Reasons.SUPERSEDED + " your token for " + site + " is no longer current");
        }
    }

    /** Whether the report's attempt is one of the current run's: from the attempt its caller dispatched to the one running now. */
    private static boolean ofThisRun(SiteState state, WorkerEvent event) {
        return event.getAttempt() >= SiteLifecycle.callerAttempt(state) && event.getAttempt() <= state.getAttempt();
    }

    /** A late result of a resolved site, with a token the site issued: never alters state, goes to the run's caller flagged unmatched. */
    private void relayToOutbox(SiteKey site, SiteState state, WorkerEvent event) {
        emit.outcome(state.getReplyKey(), Answers.relayed(site.toRef(), state, event, emit.now()));
        emit.history(site, event(site, event, HistoryKind.UNMATCHED_COMPLETION, "site already resolved").build());
        metrics.unmatched();
    }

    /**
     * No row: the site was never dispatched here, or resolved longer ago than the dedupe window. Its
     * token cannot be verified, so nothing is relayed; a completion is kept as a dead letter.
     */
    private void unknownSite(SiteKey site, WorkerEvent event) {
        if (event.getKind() == WorkerEventKind.COMPLETED || event.getKind() == WorkerEventKind.FAILED) {
            emit.history(site, event(site, event, HistoryKind.UNMATCHED_COMPLETION, "site unknown: not relayed").build());
            inputDeadLetters.deadLetter(event.getKind() + " for unknown site " + site + " (never dispatched, or resolved before the dedupe "
                    + "window): its token cannot be verified, so it was not relayed to any caller");
        } else {
            refuse(site, event, "site unknown");
        }
    }

    private void refuse(SiteKey site, WorkerEvent event, String why) {
        emit.history(site, event(site, event, HistoryKind.COMPLETION_REFUSED, event.getKind() + " refused: " + why).build());
        metrics.refused();
    }

    private HistoryEvent.Builder event(SiteKey site, WorkerEvent event, HistoryKind kind, String reason) {
        return Answers.history(site.toRef(), event, kind, reason, emit.now());
    }

    /** The holder ended its generation by its own report: a late lease or heartbeat of it is no zombie. */
    private static SiteState endedByHolder(SiteState state, WorkerEvent event) {
        state.setWorkerId(event.getWorkerId());
        state.setResolvedToken(event.getToken());
        return state;
    }
}
