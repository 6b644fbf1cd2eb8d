package dev.baton.morsel.history;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.events.Outcome;
import dev.baton.schemas.SiteKey;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One record of the outbox: a late completion or failure of a resolved site, relayed on
 * {@code baton.results} flagged {@code unmatched} to the reply key (client id) of the run's caller.
 * It never changed the site's outcome; it is kept for whoever must reconcile the side effect.
 *
 * @param requestId the request of the run's first caller
 * @param clientId the record's key: the client the relay is addressed to
 * @param outputBytes size of the late output, 0 when it has none
 */
public record OutboxEntry(SiteKey site, String requestId, String clientId, int attempt, String status, String reason, String workerId,
                          int outputBytes, long atMillis, int partition, long offset) {

    static OutboxEntry of(ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
        return new OutboxEntry(SiteKey.of(outcome.getSite()), outcome.getRequestId(),
                record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8), outcome.getAttempt(),
                outcome.getStatus().name(), outcome.getReason(), outcome.getWorkerId(),
                outcome.getOutput() == null ? 0 : outcome.getOutput().getData().remaining(), outcome.getAtMillis(),
                record.partition(), record.offset());
    }

    /** The fields in print order, for one JSON object per line. */
    public Map<String, Object> fields() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("site", site.asKey());
        out.put("namespace", site.namespace());
        out.put("workflowId", site.workflowId());
        out.put("activityId", site.activityId());
        out.put("requestId", requestId);
        out.put("clientId", clientId);
        out.put("attempt", attempt);
        out.put("status", status);
        out.put("reason", reason);
        out.put("workerId", workerId);
        out.put("outputBytes", outputBytes);
        out.put("atMillis", atMillis);
        out.put("time", Instant.ofEpochMilli(atMillis).toString());
        out.put("partition", partition);
        out.put("offset", offset);
        return out;
    }
}
