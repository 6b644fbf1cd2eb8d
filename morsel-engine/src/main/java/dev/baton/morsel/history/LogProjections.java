package dev.baton.morsel.history;

import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.morsel.kafka.Projection;

/**
 * The fields the history queries read from Baton's logs, and their slots. Everything else in a
 * record is skipped on the wire, never decoded.
 */
final class LogProjections {

    static final Projection HISTORY = Projection.of(HistoryEvent.getClassSchema(),
            "kind", "atMillis", "site.namespace", "site.workflowId", "attempt", "requestId", "queue", "activityType");
    static final int H_KIND = 0;
    static final int H_AT = 1;
    static final int H_NAMESPACE = 2;
    static final int H_WORKFLOW = 3;
    static final int H_ATTEMPT = 4;
    static final int H_REQUEST = 5;
    static final int H_QUEUE = 6;
    static final int H_TYPE = 7;

    static final Projection OUTCOME = Projection.of(Outcome.getClassSchema(), "requestId", "status", "reason", "unmatched", "atMillis");
    static final int O_REQUEST = 0;
    static final int O_STATUS = 1;
    static final int O_REASON = 2;
    static final int O_UNMATCHED = 3;
    static final int O_AT = 4;

    static final Projection COMMAND = Projection.of(DispatchCommand.getClassSchema(), "requestId", "kind", "attempt");
    static final int C_REQUEST = 0;
    static final int C_KIND = 1;
    static final int C_ATTEMPT = 2;

    private LogProjections() {
    }

    /** Parses the projections' schemas (this class's initialisation), for a thread that does it ahead of the first decode. */
    static int parse() {
        return HISTORY.size() + OUTCOME.size() + COMMAND.size();
    }
}
