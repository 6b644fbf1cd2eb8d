package dev.baton.streams.processor;

import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.Refusal;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.Superseded;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;

/**
 * The rules for a service's {@code DispatchCommand}: start, join, republish, collision, takeover,
 * refusal, cancel. A request names an attempt; the site's run covers the attempts from the one its
 * caller dispatched ({@code callerAttempt}) to the one running now (policy retries raise it). A
 * request sent again after its answer gets the same answer while the site remembers it: the run's
 * outcome, or {@code superseded:} for a caller of the run the last takeover ended.
 */
final class DispatchRules {

    private final SiteLifecycle lifecycle;
    private final Emitter emit;
    private final QueueDirectory queues;
    private final boolean atLeastOnce;

    DispatchRules(SiteLifecycle lifecycle, Emitter emit, QueueDirectory queues, boolean atLeastOnce) {
        this.atLeastOnce = atLeastOnce;
        this.lifecycle = lifecycle;
        this.emit = emit;
        this.queues = queues;
    }

    /** {@code current} is the site's row as the step found it (read once per step by the processor). */
    void requested(SiteKey site, DispatchCommand cmd, Optional<SiteState> current) {
        SiteState held = current.orElse(null);
        if (held != null && knows(held, cmd.getRequestId())) {
            // Decided before (read again, or sent again): it gets what its first copy got, whatever the
            // settings or the declared queues say now, and starts nothing.
            answerAgain(site, cmd, held);
            return;
        }
        if (!queues.isDeclared(cmd.getQueue())) {
            refuse(site, current, cmd, HistoryKind.UNAVAILABLE, Reasons.UNAVAILABLE + " unknown queue '" + cmd.getQueue()
                    + "': declare it with `baton topics create --queue " + cmd.getQueue() + "`");
            return;
        }
        if (cmd.getNode() != null && !queues.isDeclared(cmd.getQueue(), cmd.getNode())) {
            refuse(site, current, cmd, HistoryKind.UNAVAILABLE, Reasons.UNAVAILABLE + " unknown node '" + cmd.getNode() + "' on queue '"
                    + cmd.getQueue() + "': declare it with `baton topics create --queue " + cmd.getQueue() + " --node " + cmd.getNode() + "`");
            return;
        }
        if (held == null || held.getState() == SiteStatus.REFUSED) {
            lifecycle.startRun(site, held, cmd, emit.now());
            return;
        }
        boolean resolved = held.getState() == SiteStatus.RESOLVED;
        if (cmd.getAttempt() > held.getAttempt()) {
            if (resolved) {
                lifecycle.startRun(site, held, cmd, emit.now());
            } else {
                lifecycle.supersede(site, held, cmd.getAttempt());
                lifecycle.startRun(site, held, cmd, held.getFirstRequestedAtMillis());
            }
        } else if (cmd.getAttempt() < SiteLifecycle.callerAttempt(held)) {
            refuse(site, current, cmd, HistoryKind.ATTEMPT_REFUSED, Reasons.TERMINAL + " AttemptRefused: attempt " + cmd.getAttempt()
                    + " is below the site's attempt " + SiteLifecycle.callerAttempt(held));
        } else if (!cmd.getIdempotencyKey().equals(held.getIdempotencyKey())) {
            refuse(site, current, cmd, HistoryKind.SITE_COLLISION, Reasons.TERMINAL + " SiteCollision: attempt " + cmd.getAttempt()
                    + " of site " + site + " is held by a different request (idempotency key differs)");
        } else if (resolved) {
            // At-least-once: the request becomes a caller of the resolved run, so that read again
            // after a newer run replaced this one it still gets this run's outcome.
            if (atLeastOnce) {
                lifecycle.join(site, held, cmd.getRequestId(), cmd.getReplyKey());
            }
            republish(site, cmd, held);
        } else {
            join(site, cmd, held);
        }
    }

    /** A request the site already decided ({@link #knows}): the answer its first copy got, or it joins its run again. */
    private void answerAgain(SiteKey site, DispatchCommand cmd, SiteState held) {
        if (wasSuperseded(held, cmd.getRequestId())) {
            Superseded gone = held.getSuperseded();
            emit.outcome(cmd.getReplyKey(), Answers.superseded(site.toRef(), gone.getAttempt(), gone.getByAttempt(),
                    new Waiter(cmd.getRequestId(), cmd.getReplyKey()), null, emit.now()));
            emit.history(site, Answers.history(site.toRef(), held, HistoryKind.OUTCOME_REPUBLISHED,
                    "superseded: by attempt " + gone.getByAttempt(), emit.now())
                    .setRequestId(cmd.getRequestId()).build());
        } else if (SiteLifecycle.isCaller(held, cmd.getRequestId())) {
            // The same request again, whatever attempt or key this copy names: it joins what its first copy did.
            sameRequestAgain(site, cmd, held, held.getState() == SiteStatus.RESOLVED);
        } else if (previousRunCaller(held, cmd.getRequestId()) != null) {
            // A caller of the resolved run a new run replaced: its request read again gets that run's outcome.
            emit.outcome(cmd.getReplyKey(), Answers.previousRun(site.toRef(), held.getPreviousRun(),
                    previousRunCaller(held, cmd.getRequestId()), emit.now()));
            emit.history(site, Answers.history(site.toRef(), held, HistoryKind.OUTCOME_REPUBLISHED,
                    held.getPreviousRun().getReason(), emit.now())
                    .setRequestId(cmd.getRequestId()).build());
        } else if (earlierRun(held, cmd.getRequestId()) != null) {
            // At-least-once: a caller of a run ended before the previous one (it left previousRun or superseded since).
            PreviousRun run = earlierRun(held, cmd.getRequestId());
            emit.outcome(cmd.getReplyKey(), Answers.previousRun(site.toRef(), run, new Waiter(cmd.getRequestId(), cmd.getReplyKey()),
                    emit.now()));
            emit.history(site, Answers.history(site.toRef(), held, HistoryKind.OUTCOME_REPUBLISHED, run.getReason(), emit.now())
                    .setRequestId(cmd.getRequestId()).build());
        } else {
            // At-least-once: a request this site refused, read again: the same refusal.
            Refusal refused = refusal(held, cmd.getRequestId());
            emit.outcome(cmd.getReplyKey(), Answers.failed(site.toRef(), new Waiter(cmd.getRequestId(), cmd.getReplyKey()),
                    refused.getAttempt(), refused.getReason(), null, emit.now()));
            emit.history(site, Answers.history(site.toRef(), held, HistoryKind.OUTCOME_REPUBLISHED, refused.getReason(), emit.now())
                    .setRequestId(cmd.getRequestId()).build());
        }
    }

    void cancel(SiteKey site, DispatchCommand cmd, Optional<SiteState> current) {
        if (current.isEmpty() || current.get().getState() == SiteStatus.RESOLVED || current.get().getState() == SiteStatus.REFUSED) {
            return; // nothing live to cancel; a cancel is a request, not a fact worth recording
        }
        SiteState held = current.get();
        String reason = Reasons.CANCELLED + " cancelled by request " + cmd.getRequestId();
        lifecycle.stopHolder(site, held, reason);
        lifecycle.resolve(site, held, OutcomeStatus.FAILED, null, reason, HistoryKind.CANCELLED, held.getGeneration());
    }

    private void sameRequestAgain(SiteKey site, DispatchCommand cmd, SiteState held, boolean resolved) {
        if (resolved) {
            republish(site, cmd, held);
        } else {
            emit.history(site, Answers.history(site.toRef(), held, HistoryKind.DUPLICATE_IGNORED, null, emit.now())
                    .setRequestId(cmd.getRequestId()).build());
        }
    }

    private void republish(SiteKey site, DispatchCommand cmd, SiteState held) {
        emit.outcome(cmd.getReplyKey(), Answers.resolved(site.toRef(), held, new Waiter(cmd.getRequestId(), cmd.getReplyKey()), null,
                emit.now()));
        emit.history(site, Answers.history(site.toRef(), held, HistoryKind.OUTCOME_REPUBLISHED, held.getOutcomeReason(), emit.now())
                .setRequestId(cmd.getRequestId()).build());
    }

    private void join(SiteKey site, DispatchCommand cmd, SiteState held) {
        if (!lifecycle.join(site, held, cmd.getRequestId(), cmd.getReplyKey())) {
            refuse(site, Optional.of(held), cmd, HistoryKind.DUPLICATE_IGNORED, Reasons.RETRYABLE + " site " + site + " already has "
                    + SiteLifecycle.MAX_WAITERS + " joined callers waiting; re-send this request once it resolves to get its outcome");
            return;
        }
        emit.history(site, Answers.history(site.toRef(), held, HistoryKind.DUPLICATE_IGNORED, null, emit.now())
                .setRequestId(cmd.getRequestId()).build());
    }

    /**
     * Whether the site already decided {@code requestId}: a caller of its run, of a run it replaced or superseded, or a
     * request it refused. Such a request read or sent again gets what its first copy got and starts nothing.
     */
    static boolean knows(SiteState held, String requestId) {
        return wasSuperseded(held, requestId) || SiteLifecycle.isCaller(held, requestId) || previousRunCaller(held, requestId) != null
                || earlierRun(held, requestId) != null || refusal(held, requestId) != null;
    }

    /** The caller {@code requestId} of the resolved run the current run replaced, or null. */
    private static Waiter previousRunCaller(SiteState held, String requestId) {
        PreviousRun before = held.getPreviousRun();
        return before == null ? null : before.getCallers().stream().filter(w -> w.getRequestId().equals(requestId)).findFirst().orElse(null);
    }

    /** At-least-once: the remembered earlier run {@code requestId} was a caller of, or null. */
    private static PreviousRun earlierRun(SiteState held, String requestId) {
        for (PreviousRun run : held.getEarlierRuns()) {
            if (run.getCallers().stream().anyMatch(w -> w.getRequestId().equals(requestId))) {
                return run;
            }
        }
        return null;
    }

    /** At-least-once: the remembered refusal of {@code requestId}, or null. */
    private static Refusal refusal(SiteState held, String requestId) {
        return held.getRefusals().stream().filter(r -> r.getRequestId().equals(requestId)).findFirst().orElse(null);
    }

    /** Whether {@code requestId} is a caller the site's last takeover answered {@code superseded:}: its request sent again. */
    private static boolean wasSuperseded(SiteState held, String requestId) {
        Superseded gone = held.getSuperseded();
        return gone != null && gone.getCallers().stream().anyMatch(w -> w.getRequestId().equals(requestId));
    }

    /** Refuses this caller by the site's rules or settings; at-least-once, the site's row remembers the refusal. */
    private void refuse(SiteKey site, Optional<SiteState> current, DispatchCommand cmd, HistoryKind kind, String reason) {
        emit.outcome(cmd.getReplyKey(), Answers.failed(site.toRef(), cmd, reason, emit.now()));
        emit.history(site, Answers.history(site.toRef(), cmd, kind, reason, emit.now()));
        remember(site, current, cmd, reason);
    }

    /**
     * At-least-once: the site's row remembers that it refused {@code cmd}'s request with {@code reason}; a site with no row
     * gets a refusal-only row ({@code REFUSED}). A refusal may rest on a setting (max.payload.bytes, the declared queues):
     * read again after a crash, by an app whose settings accept it now, the request would otherwise run after its caller was
     * refused, two distinct outcomes for one request id (h/adv22s). Exactly-once commits the refusal with its input.
     */
    void remember(SiteKey site, Optional<SiteState> current, DispatchCommand cmd, String reason) {
        if (!atLeastOnce) {
            return;
        }
        SiteState row = current.orElseGet(() -> lifecycle.refusalRow(site, cmd));
        lifecycle.rememberRefusal(site, row, cmd.getRequestId(), Math.max(cmd.getAttempt(), 0), reason);
    }
}
