package dev.baton.streams.processor;

import java.util.Optional;
import java.util.OptionalInt;

import dev.baton.events.HistoryKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import dev.baton.streams.state.DeadlineIndex;
import dev.baton.streams.state.DeadlineIndex.Due;
import dev.baton.streams.state.DeadlineKind;
import dev.baton.streams.state.SiteStore;

/** What happens when a deadline passes: transport loss, timeouts, retry, expiry of the dedupe window. */
final class DeadlineRules {

    private final SiteStore sites;
    private final DeadlineIndex deadlines;
    private final SiteLifecycle lifecycle;
    private final SiteMetrics metrics;
    private final WorkerCensus census;
    private final int transportLossBudget;

    DeadlineRules(SiteStore sites, DeadlineIndex deadlines, SiteLifecycle lifecycle, SiteMetrics metrics,
                  WorkerCensus census, int transportLossBudget) {
        this.sites = sites;
        this.deadlines = deadlines;
        this.lifecycle = lifecycle;
        this.metrics = metrics;
        this.census = census;
        this.transportLossBudget = transportLossBudget;
    }

    void fire(Due due) {
        fire(due, new Request(OptionalInt.empty(), Optional.empty()));
    }

    /**
     * Fires a deadline as its deadline record asks (at-least-once). The record's census is the count
     * of live workers a schedule-to-start expiry reports instead of counting now; its arming input
     * matches the deadline that input armed again, at another time, when the record is read again after
     * a crash (see {@link DeadlineArm}). Either way the record then gives the outcome it gave the first time.
     */
    void fire(Due due, Request asked) {
        deadlines.remove(due);
        Optional<SiteState> current = sites.get(due.site());
        if (current.isEmpty()) {
            return;
        }
        SiteState state = current.get();
        Long armed = state.getDeadlines().get(due.kind().name());
        if (armed == null || armed != due.atMillis() && !asked.armedBy().map(arm -> arm.armed(state, due.kind())).orElse(false)) {
            return; // moved or cancelled since; its index entry was stale
        }
        if (armed != due.atMillis()) {
            deadlines.disarm(due.site(), due.kind(), armed); // armed again, later, by the input read again
        }
        state.getDeadlines().remove(due.kind().name());
        state.getDeadlineInputs().remove(due.kind().name());
        SiteKey site = due.site();
        switch (due.kind()) {
            case EXPIRE -> expire(site, state);
            case HEARTBEAT -> {
                if (state.getState() == SiteStatus.LEASED) {
                    transportLoss(site, state);
                } else {
                    sites.put(site, state);
                }
            }
            case START_TO_CLOSE -> {
                String reason = Reasons.RETRYABLE + " start-to-close timeout after " + state.getTimeouts().getStartToCloseMillis() + " ms";
                lifecycle.stopHolder(site, state, reason);
                lifecycle.fail(site, state, reason, HistoryKind.TIMED_OUT, state.getGeneration());
            }
            case SCHEDULE_TO_START -> unavailable(site, state, asked.census());
            case SCHEDULE_TO_CLOSE -> {
                String reason = Reasons.TERMINAL + " schedule-to-close timeout after " + state.getTimeouts().getScheduleToCloseMillis() + " ms";
                lifecycle.stopHolder(site, state, reason);
                lifecycle.resolve(site, state, OutcomeStatus.FAILED, null, reason, HistoryKind.TIMED_OUT, state.getGeneration());
            }
            case RETRY -> {
                if (state.getState() == SiteStatus.BACKOFF) {
                    lifecycle.retry(site, state);
                }
            }
            default -> sites.put(site, state);
        }
    }

    /** What a deadline record carries besides its deadline: the census it reports, the input that armed it. */
    record Request(OptionalInt census, Optional<DeadlineArm> armedBy) {
    }

    /**
     * What a deadline record for {@code due} should carry: for a schedule-to-start expiry, the live
     * workers for the site's queue (and node) now; for a deadline an input armed at {@code due}'s time,
     * that input. Empty parts for a row gone or unreadable (its firing then counts, or finds nothing to fire).
     */
    Request requestFor(Due due) {
        try {
            Optional<SiteState> row = sites.get(due.site());
            if (row.isEmpty()) {
                return new Request(OptionalInt.empty(), Optional.empty());
            }
            SiteState s = row.get();
            OptionalInt live = due.kind() == DeadlineKind.SCHEDULE_TO_START ? OptionalInt.of(census.liveWorkers(s.getQueue(), s.getNode()))
                    : OptionalInt.empty();
            Long armed = s.getDeadlines().get(due.kind().name());
            Optional<DeadlineArm> arm = armed != null && armed == due.atMillis() ? DeadlineArm.of(s, due.kind()) : Optional.empty();
            return new Request(live, arm);
        } catch (RuntimeException e) {
            return new Request(OptionalInt.empty(), Optional.empty()); // an undecodable row: its firing drops the deadline and says so
        }
    }

    private void expire(SiteKey site, SiteState state) {
        if (state.getState() == SiteStatus.RESOLVED || state.getState() == SiteStatus.REFUSED) {
            sites.delete(site);
        } else {
            sites.put(site, state);
        }
    }

    /** The lease went silent. Never consumes an attempt: the same attempt is re-delivered within budget. */
    private void transportLoss(SiteKey site, SiteState state) {
        metrics.transportLost();
        int losses = state.getTransportLosses() + 1;
        state.setTransportLosses(losses);
        String silent = "no heartbeat from worker " + state.getWorkerId() + " for " + lifecycle.heartbeatWindowMs(state) + " ms";
        if (losses > transportLossBudget) {
            lifecycle.stopHolder(site, state, Reasons.TRANSPORT_EXHAUSTED);
            lifecycle.resolve(site, state, OutcomeStatus.FAILED, null, Reasons.TRANSPORT_EXHAUSTED + " " + silent
                    + "; " + (losses - 1) + " re-deliveries spent the budget of " + transportLossBudget, HistoryKind.TRANSPORT_LOST,
                    state.getGeneration());
        } else {
            lifecycle.redeliver(site, state, HistoryKind.TRANSPORT_LOST,
                    Reasons.LOST + " " + silent + " (loss " + losses + " of budget " + transportLossBudget + ")", true);
        }
    }

    private void unavailable(SiteKey site, SiteState state, OptionalInt censusAtRequest) {
        if (state.getState() != SiteStatus.PENDING && state.getState() != SiteStatus.UNSERVED) {
            sites.put(site, state);
            return;
        }
        String queue = state.getQueue();
        String node = state.getNode();
        int live = censusAtRequest.orElseGet(() -> census.liveWorkers(queue, node));
        String serving = node == null ? "serve queue '" + queue + "'" : "with node '" + node + "' on queue '" + queue + "'";
        String why = live == 0 ? "unserved: no live worker " + (node == null ? "serves queue '" + queue + "'" : serving)
                : "saturated: " + live + " live worker(s) " + serving + ", none took the task";
        String reason = Reasons.UNAVAILABLE + " " + why + " within schedule-to-start " + state.getTimeouts().getScheduleToStartMillis() + " ms";
        lifecycle.resolve(site, state, OutcomeStatus.FAILED, null, reason, HistoryKind.UNAVAILABLE, state.getGeneration());
    }
}
