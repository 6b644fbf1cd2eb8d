package dev.baton.streams.processor;

import dev.baton.events.DispatchCommand;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;

/** The outcome that answers a dispatch request without running it: refused, invalid, or lost to a bug. */
public final class DispatchAnswers {

    private DispatchAnswers() {
    }

    /** A failed outcome addressed to the request's caller; an invalid attempt below zero is reported as 0. */
    public static Outcome failed(SiteRef site, DispatchCommand request, String reason, long atMillis) {
        return Outcome.newBuilder().setStatus(OutcomeStatus.FAILED).setSite(site).setRequestId(request.getRequestId())
                .setReplyKey(request.getReplyKey()).setAttempt(Math.max(request.getAttempt(), 0)).setReason(reason)
                .setAtMillis(atMillis).build();
    }
}
