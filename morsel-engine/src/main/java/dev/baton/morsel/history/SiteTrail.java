package dev.baton.morsel.history;

import dev.baton.events.HistoryKind;
import dev.baton.morsel.kafka.ProjectedRow;

/**
 * What history says about one site, folded from its events in any order: all events of a site sit
 * in one partition, so "latest" means highest offset. Mergeable, so parallel scans can each fold a
 * part and combine.
 */
public final class SiteTrail {

    private static final HistoryKind[] KINDS = HistoryKind.values();

    final String siteKey;
    final String namespace;
    final String workflowId;
    long dispatchOffset = -1;
    String requestId;
    int attempt;
    String queue;
    String activityType;
    long firstDispatchAt = Long.MAX_VALUE;
    long lastOffset = -1;
    HistoryKind lastKind;

    SiteTrail(String siteKey, String namespace, String workflowId) {
        this.siteKey = siteKey;
        this.namespace = namespace;
        this.workflowId = workflowId;
    }

    /** Adds one event, read through {@link LogProjections#HISTORY}. */
    void add(long offset, ProjectedRow e) {
        HistoryKind kind = KINDS[e.getInt(LogProjections.H_KIND)];
        if (kind == HistoryKind.DISPATCHED) {
            firstDispatchAt = Math.min(firstDispatchAt, e.getLong(LogProjections.H_AT));
            if (offset > dispatchOffset) {
                dispatchOffset = offset;
                requestId = e.string(LogProjections.H_REQUEST);
                attempt = e.getInt(LogProjections.H_ATTEMPT);
                queue = e.string(LogProjections.H_QUEUE);
                activityType = e.string(LogProjections.H_TYPE);
            }
        }
        if (offset > lastOffset) {
            lastOffset = offset;
            lastKind = kind;
        }
    }

    SiteTrail merge(SiteTrail o) {
        firstDispatchAt = Math.min(firstDispatchAt, o.firstDispatchAt);
        if (o.dispatchOffset > dispatchOffset) {
            dispatchOffset = o.dispatchOffset;
            requestId = o.requestId;
            attempt = o.attempt;
            queue = o.queue;
            activityType = o.activityType;
        }
        if (o.lastOffset > lastOffset) {
            lastOffset = o.lastOffset;
            lastKind = o.lastKind;
        }
        return this;
    }

    public String siteKey() {
        return siteKey;
    }

    public String requestId() {
        return requestId;
    }

    public int attempt() {
        return attempt;
    }

    public String queue() {
        return queue;
    }

    boolean dispatched() {
        return requestId != null;
    }

    /** Parked by a draining worker and not leased, resolved or re-dispatched since. */
    boolean parked() {
        return lastKind == HistoryKind.PARKED;
    }
}
