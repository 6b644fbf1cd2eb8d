package dev.baton.streams.processor;

import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.SiteRef;
import dev.baton.schemas.Reasons;

/** The outcome that answers a dispatch request without running it: refused, invalid, or lost to a bug. */
public final class DispatchAnswers {

    private DispatchAnswers() {
    }

    /** A failed outcome addressed to the request's caller; an invalid attempt below zero is reported as 0. */
    public static Outcome failed(SiteRef site, DispatchCommand request, String reason, long atMillis) {
        return Answers.failed(site, request, reason, atMillis);
    }

    /**
     * The answer to a request whose decision threw (a bug, or an output that could not be encoded):
     * the step was dropped whole, so nothing changed, and the same request may simply be sent again.
     */
    public static Outcome internalError(SiteRef site, DispatchCommand request, String where, Exception e, long atMillis) {
        return failed(site, request, Reasons.RETRYABLE + " internal error in the streams app while deciding this dispatch (dead-lettered "
                + "from " + where + ": " + e + "); nothing was changed, send it again", atMillis);
    }

    /**
     * A dispatch whose step needed a schema the registry refused (a foreign schema registered first
     * under a subject of Baton's, say): sending it again fails the same way, so it is terminal.
     */
    public static Outcome schemaRefused(SiteRef site, DispatchCommand request, Exception e, long atMillis) {
        return failed(site, request, Reasons.TERMINAL + " SchemaRefused: the schema registry refused a schema this dispatch needs ("
                + e.getMessage() + "); nothing was changed", atMillis);
    }

    /** The history event of a request answered without running: it carries the request id, so history shows every answer. */
    public static HistoryEvent history(SiteRef site, DispatchCommand request, HistoryKind kind, String reason, long atMillis) {
        return Answers.history(site, request, kind, reason, atMillis);
    }
}
