package dev.baton.streams.processor;

import java.util.Objects;

import dev.baton.events.DispatchCommand;
import dev.baton.events.Failure;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.Reasons;

/**
 * The one place the streams app builds the outcomes it sends callers and the history events it
 * records: each sets site, caller, attempt and time here and nowhere else. Pure: the time is passed in
 * ({@code emit.now()} in a step), so the same inputs always give the same record.
 */
final class Answers {

    private Answers() {
    }

    /** An outcome to {@code caller}: the one builder every other outcome goes through. */
    static Outcome answer(SiteRef site, Waiter caller, int attempt, OutcomeStatus status, Payload output, String reason,
                          Failure failure, String workerId, long atMillis) {
        return answer(site, caller, attempt, status, output, reason, failure, workerId, false, atMillis);
    }

    private static Outcome answer(SiteRef site, Waiter caller, int attempt, OutcomeStatus status, Payload output, String reason,
                                  Failure failure, String workerId, boolean unmatched, long atMillis) {
        // The record's constructor, not Avro's builder (which copies and validates field by field): one or more per activity.
        return new Outcome(Objects.requireNonNull(status, "status"), Objects.requireNonNull(site, "site"), caller.getRequestId(),
                caller.getReplyKey(), attempt, output, reason, unmatched, workerId, atMillis, failure);
    }

    /** A failed outcome without output or structured failure: a refusal, a takeover, an answer without running. */
    static Outcome failed(SiteRef site, Waiter caller, int attempt, String reason, String workerId, long atMillis) {
        return answer(site, caller, attempt, OutcomeStatus.FAILED, null, reason, null, workerId, atMillis);
    }

    /** A request answered without running, for its own caller; an invalid attempt below zero is reported as 0. */
    static Outcome failed(SiteRef site, DispatchCommand request, String reason, long atMillis) {
        return failed(site, caller(request), Math.max(request.getAttempt(), 0), reason, null, atMillis);
    }

    /** The stored result of a resolved site, for {@code caller}. */
    static Outcome resolved(SiteRef site, SiteState state, Waiter caller, String workerId, long atMillis) {
        return answer(site, caller, state.getAttempt(), state.getOutcomeStatus(), state.getOutcomeOutput(), state.getOutcomeReason(),
                state.getOutcomeFailure(), workerId, atMillis);
    }

    /** The outcome of a run a newer one replaced, for one of its callers. */
    static Outcome previousRun(SiteRef site, PreviousRun run, Waiter caller, long atMillis) {
        return answer(site, caller, run.getAttempt(), run.getStatus(), run.getOutput(), run.getReason(), run.getFailure(), null, atMillis);
    }

    /** The answer a caller of a run attempt {@code byAttempt} took over gets. */
    static Outcome superseded(SiteRef site, int attempt, int byAttempt, Waiter caller, String workerId, long atMillis) {
        return failed(site, caller, attempt, supersededReason(byAttempt), workerId, atMillis);
    }

    static String supersededReason(int byAttempt) {
        return Reasons.SUPERSEDED + " by attempt " + byAttempt;
    }

    /** A late completion or failure of a resolved site's own run, relayed to that run's first caller flagged unmatched. */
    static Outcome relayed(SiteRef site, SiteState state, WorkerEvent event, long atMillis) {
        boolean failed = event.getKind() == WorkerEventKind.FAILED;
        return answer(site, new Waiter(state.getRequestId(), state.getReplyKey()), event.getAttempt(),
                event.getKind() == WorkerEventKind.COMPLETED ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED, event.getOutput(),
                failed ? Reasons.fromWorker(event.getReason()) : null, failed ? event.getFailure() : null, event.getWorkerId(), true, atMillis);
    }

    /** A history event with what every one carries; callers add what only they know. */
    static HistoryEvent.Builder history(SiteRef site, HistoryKind kind, int attempt, Integer generation, String reason, long atMillis) {
        return HistoryEvent.newBuilder().setKind(kind).setSite(site).setAttempt(attempt).setGeneration(generation).setReason(reason)
                .setAtMillis(atMillis);
    }

    /** A history event of a site's current run: its attempt, generation, queue, type and first caller. */
    static HistoryEvent.Builder history(SiteRef site, SiteState state, HistoryKind kind, String reason, long atMillis) {
        return history(site, kind, state.getAttempt(), state.getGeneration(), reason, atMillis).setQueue(state.getQueue())
                .setActivityType(state.getActivityType()).setRequestId(state.getRequestId());
    }

    /**
     * A history event of a site's current run with each field given, made with the record's constructor, not Avro's builder
     * (which copies the schema's field list and fills each unset field with a copy of its default): two per activity, when
     * it is dispatched and when it resolves, and a third under exactly-once, when it is leased. Every other field of the schema defaults to null, so this is the event the
     * builder makes from the same values ({@code AnswersTest} fails when a field is added).
     */
    static HistoryEvent runHistory(SiteRef site, SiteState state, HistoryKind kind, Integer generation, String workerId, String reason,
                                   long atMillis) {
        return new HistoryEvent(Objects.requireNonNull(kind, "kind"), Objects.requireNonNull(site, "site"), state.getAttempt(), generation,
                state.getQueue(), state.getActivityType(), workerId, state.getRequestId(), null, reason, null, atMillis, null);
    }

    /** The history event of a request answered without running: it carries the request id, so history shows every answer. */
    static HistoryEvent history(SiteRef site, DispatchCommand request, HistoryKind kind, String reason, long atMillis) {
        return history(site, kind, Math.max(request.getAttempt(), 0), null, reason, atMillis).setQueue(request.getQueue())
                .setActivityType(request.getActivityType()).setRequestId(request.getRequestId())
                .setIdempotencyKey(request.getIdempotencyKey()).build();
    }

    /** A history event about a worker's report: its attempt, generation and worker. */
    static HistoryEvent.Builder history(SiteRef site, WorkerEvent event, HistoryKind kind, String reason, long atMillis) {
        return history(site, kind, event.getAttempt(), event.getGeneration(), reason, atMillis).setWorkerId(event.getWorkerId());
    }

    private static Waiter caller(DispatchCommand request) {
        return new Waiter(request.getRequestId(), request.getReplyKey());
    }
}
