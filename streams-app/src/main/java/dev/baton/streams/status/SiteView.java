package dev.baton.streams.status;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.Waiter;
import dev.baton.schemas.SiteKey;

/**
 * A site's row of the {@code sites} store as operators read it ({@code baton site describe},
 * {@code baton sites list}): never its token, token secret or payloads, which are authorization
 * and user data.
 */
final class SiteView {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SiteView() {
    }

    /** One line of {@code sites list}. */
    static ObjectNode row(SiteKey site, SiteState s) {
        ObjectNode out = JSON.createObjectNode();
        out.put("site", site.asKey());
        out.put("state", s.getState().toString());
        out.put("queue", s.getQueue());
        out.put("activityType", s.getActivityType());
        out.put("attempt", s.getAttempt());
        out.put("generation", s.getGeneration());
        out.put("leaseHolder", s.getWorkerId());
        return out;
    }

    /** Everything {@code site describe} shows: the row, its deadlines, callers and last outcome. */
    static ObjectNode describe(SiteKey site, SiteState s, String owner) {
        ObjectNode out = row(site, s);
        out.put("owner", owner);
        out.put("node", s.getNode());
        out.put("runId", s.getRunId());
        out.put("transportLosses", s.getTransportLosses());
        out.put("createdAt", Instant.ofEpochMilli(s.getCreatedAtMillis()).toString());
        Map<String, String> deadlines = new TreeMap<>();
        s.getDeadlines().forEach((kind, at) -> deadlines.put(kind.toString(), Instant.ofEpochMilli(at).toString()));
        out.set("deadlines", JSON.valueToTree(deadlines));
        ArrayNode callers = out.putArray("callers");
        callers.addObject().put("requestId", s.getRequestId()).put("replyKey", s.getReplyKey());
        for (Waiter w : s.getWaiters()) {
            callers.addObject().put("requestId", w.getRequestId()).put("replyKey", w.getReplyKey());
        }
        if (s.getOutcomeStatus() != null) {
            out.putObject("lastOutcome").put("attempt", s.getAttempt()).put("status", s.getOutcomeStatus().toString())
                    .put("reason", s.getOutcomeReason());
        } else if (s.getPreviousRun() != null) {
            out.putObject("lastOutcome").put("attempt", s.getPreviousRun().getAttempt())
                    .put("status", String.valueOf(s.getPreviousRun().getStatus())).put("reason", s.getPreviousRun().getReason())
                    .put("previousRun", true);
        } else {
            out.putNull("lastOutcome");
        }
        return out;
    }
}
